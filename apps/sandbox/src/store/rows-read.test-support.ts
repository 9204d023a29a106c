import type { HistoryReads } from '../state/history.js';
import type { Database, Queryable } from './database.js';
import { storedHistory } from './stored-history.js';

/**
 * The history reads of `database`, counting the rows of `tables` each read goes through: rows
 * scanned or fetched from the tables, and entries read from their indexes, from the statistics
 * of the read's own transaction. Table totals would also hold what other connections read and
 * report late; PGlite's one backend may hold counts of earlier transactions not yet reported,
 * so the difference over the read is taken.
 */
export function countingReads(
  database: Database,
  tables: readonly string[],
): { history: HistoryReads; rowsRead: () => number } {
  let read = 0;
  const reads: Database = {
    transaction: (work) => database.transaction(work),
    read: (work) =>
      database.read(async (tx) => {
        const { answer, rowsRead } = await countRowsRead(tx, tables, () => work(tx));
        read += rowsRead;
        return answer;
      }),
    apply: (statements, prepared) => database.apply(statements, prepared),
    close: () => database.close(),
  };
  return { history: storedHistory(reads).reads, rowsRead: () => read };
}

/** `work` run in `tx`, and the rows of `tables` it went through, counted as `countingReads` does. */
export async function countRowsRead<T>(
  tx: Queryable,
  tables: readonly string[],
  work: () => Promise<T>,
): Promise<{ answer: T; rowsRead: number }> {
  const readSoFar = async () => {
    const [row] = (
      await tx.query<{ read: string }>(
        `SELECT coalesce(sum(pg_stat_get_xact_tuples_returned(c.oid)
           + CASE WHEN c.relkind = 'i' THEN 0 ELSE pg_stat_get_xact_tuples_fetched(c.oid) END), 0)
           AS read
         FROM pg_class c LEFT JOIN pg_index i ON i.indexrelid = c.oid
         WHERE c.oid = ANY($1::regclass[]) OR i.indrelid = ANY($1::regclass[])`,
        [tables],
      )
    ).rows;
    return Number(row?.read ?? 0);
  };
  const before = await readSoFar();
  const answer = await work();
  return { answer, rowsRead: (await readSoFar()) - before };
}
