import type { Database } from './database.js';

/**
 * How many rows of `table` the store has read since it started, by any scan, as its
 * statistics count them: once they count at least `atLeast`, or after a few seconds. PGlite's
 * one connection reports at once; PostgreSQL's pooled ones when idle, within seconds.
 */
export async function rowsRead(database: Database, table: string, atLeast = 0): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await database.read((tx) => tx.query('SELECT pg_stat_force_next_flush()'));
    const [row] = await database.read(
      async (tx) =>
        (
          await tx.query<{ read: string }>(
            `SELECT t.seq_tup_read + coalesce(t.idx_tup_fetch, 0) + coalesce((SELECT
               sum(idx_tup_read) FROM pg_stat_user_indexes i WHERE i.relid = t.relid), 0) AS read
             FROM pg_stat_user_tables t WHERE t.relname = $1`,
            [table],
          )
        ).rows,
    );
    const read = Number(row?.read ?? 0);
    if (read >= atLeast || Date.now() > deadline) return read;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
