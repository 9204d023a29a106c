import type { Queryable } from './queryable.js';

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
    clauses.push(`${clause} $${params.length}`);
  }
  return { where: clauses.join(' AND '), params };
}
