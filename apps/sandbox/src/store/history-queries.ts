import type { Queryable } from './queryable.js';
import { type StoredTable, selectFrom, tableName } from './sandbox-tables.js';

/** A row as the store answers it, before a record is read from it. */
export type Row = Record<string, unknown>;

/** Text the store cannot hold (PostgreSQL's text takes no NUL): it names no row. */
export const unstorable = (value: unknown) => typeof value === 'string' && value.includes('\u0000');

/**
 * A whole number the store's bigint takes, for a bound a caller sent: every stored time and
 * row count lies well within it, so what lies beyond picks what the bound at its edge picks.
 */
export const bigint = (value: number) =>
  Math.max(Math.min(value, Number.MAX_SAFE_INTEGER), Number.MIN_SAFE_INTEGER);

export const rowsOf = async (tx: Queryable, sql: string, params: unknown[]) =>
  (await tx.query<Row>(sql, params)).rows;

export const countOf = async (tx: Queryable, sql: string, params: unknown[]) =>
  Number((await rowsOf(tx, sql, params))[0]?.count ?? 0);

/** A WHERE and its parameters, numbered from `$1`. */
export interface Where {
  where: string;
  params: unknown[];
}

/**
 * The WHERE of a user's rows that each given condition also picks: each is a column and its
 * operator (`'status ='`), and the value it compares with, left out when undefined.
 */
export function userRowsWhere(userId: number, conditions: [string, unknown][]): Where {
  const params: unknown[] = [userId];
  const clauses = ['user_id = $1'];
  for (const [clause, value] of conditions) {
    if (value === undefined) continue;
    params.push(value);
    // A clause that places its parameter itself marks the place with `$`.
    const placed = `$${params.length}`;
    clauses.push(clause.includes('$') ? clause.replace('$', placed) : `${clause} ${placed}`);
  }
  return { where: clauses.join(' AND '), params };
}

/**
 * From how many rows into a list a page reads the ids of its rows first, unless told otherwise.
 * On a million orders of one user, `GET /orders` took 21 ms at 10,000 in, 28 at 20,000 and 75
 * at 100,000 reading the page whole, and 7, 9 and 29 reading ids first; near the top the page
 * whole is the quicker.
 */
export const deepOffset = 10_000;

/**
 * A page of the rows of `table` that `picked` picks, in `order` (ending in the id, so that
 * ties keep one order), `limit` of them after `offset`. From `deep` in, the page skips its
 * offset on an index alone and reads the whole rows of the page only: Postgres reads every
 * skipped row whole and casts its numbers to text, which on a hundred thousand closed
 * positions took five times as long as the page itself.
 */
export function pageOf(
  tx: Queryable,
  table: StoredTable,
  picked: Where,
  order: string,
  { offset, limit }: { offset: number; limit: number },
  deep: number = deepOffset,
): Promise<Row[]> {
  const { where, params } = picked;
  const n = params.length;
  const page = `${order} LIMIT $${n + 1} OFFSET $${n + 2}`;
  return rowsOf(
    tx,
    offset < deep
      ? `${selectFrom(table)} WHERE ${where} ${page}`
      : `${selectFrom(table)} WHERE id IN (SELECT id FROM ${tableName(table)} WHERE ${where} ${page})
         ${order}`,
    [...params, limit, bigint(offset)],
  );
}
