import type { Queryable } from './queryable.js';

export interface LedgerHistory {
  /** How many entries to add. */
  entries: number;
  /** Whose entries they are; the user must hold an account in `currency`. */
  userId: number;
  currency: string;
  /** When the first was posted; each next one a millisecond later. */
  since: number;
}

/**
 * Adds `entries` ledger entries, credits and debits of one unit in turn, each with the
 * balance after it (an even number leaves the balance as it was): the history a long run leaves behind, in a few
 * statements: a store that size in seconds, to measure a start on it and the reads of it.
 * Ids and places (`currency_place`) follow those in use, and the sequence moves past them.
 */
export async function addLedgerHistory(db: Queryable, history: LedgerHistory): Promise<void> {
  await db.query(
    `WITH last AS (SELECT coalesce(max(id), 0) AS id FROM ledger_entries),
       placed AS (SELECT coalesce(max(currency_place), 0) AS place FROM ledger_entries
                  WHERE user_id = $1 AND currency = $2),
       account AS (SELECT balance FROM accounts WHERE user_id = $1 AND currency = $2)
     INSERT INTO ledger_entries (id, user_id, currency, amount, balance, source_action,
       created_at, currency_place)
     SELECT last.id + n, $1, $2, CASE WHEN n % 2 = 1 THEN 1 ELSE -1 END,
       account.balance + n % 2, 'funding', $3::bigint + n, placed.place + n
     FROM generate_series(1, $4::int) AS n, last, placed, account`,
    [history.userId, history.currency, history.since, history.entries],
  );
  await db.query(
    `SELECT setval('ledger_entries_id_seq', greatest((SELECT max(id) FROM ledger_entries), 1))`,
  );
}
