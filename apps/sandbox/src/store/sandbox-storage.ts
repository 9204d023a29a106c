import type { Sequences } from '../state/exchange-state.js';
import type { Changes } from '../state/journal.js';
import type { Sequencer } from '../state/sequencer.js';
import type { SandboxStorage } from '../state/storage.js';
import { changesSql } from './batch-writes.js';
import type { Database } from './database.js';
import { readIntentIds, readIntents } from './partner-load.js';
import type { Queryable } from './queryable.js';
import { loadSandboxState } from './sandbox-load.js';
import { storedHistory } from './stored-history.js';

/**
 * The sandbox's state kept in `db`: read at start (intents when a call names them), written one
 * batch at a time.
 */
export function sandboxStorage(db: Database): SandboxStorage {
  return {
    load: () => db.read(loadSandboxState),
    loadIntents: (ids) => db.read((tx) => readIntents(tx, ids)),
    loadIntentIds: () => db.read(readIntentIds),
    write: (changes: Changes) => {
      const { sql, prepared } = changesSql(changes);
      return db.apply(sql, prepared);
    },
    reclaim: db.reclaim?.bind(db),
    analyze: db.analyze?.bind(db),
    history: storedHistory(db),
  };
}

/**
 * Runs `work` in a transaction of the store's own beside a running sequencer (fixtures, tools),
 * then has the sequencer read the state back. Ids are handed out in memory, so the store's
 * sequences are first moved past them: rows `work` adds never take one a call has used.
 */
export function writeDirectly<T>(
  db: Database,
  sequencer: Sequencer,
  work: (tx: Queryable) => Promise<T>,
): Promise<T> {
  return sequencer.aside((next) =>
    db.transaction(async (tx) => {
      await tx.query(sequencesPast(next));
      return work(tx);
    }),
  );
}

/** Moves the store's sequences to the ids memory hands out next. */
function sequencesPast(next: Sequences): string {
  return `SELECT setval('orders_id_seq', ${Math.max(next.order - 1, 1)}),
    setval('orders_sequence_seq', ${Math.max(next.orderSequence - 1, 1)}),
    setval('fills_id_seq', ${Math.max(next.fill - 1, 1)}),
    setval('accounts_id_seq', ${Math.max(next.account - 1, 1)}),
    setval('ledger_entries_id_seq', ${Math.max(next.entry - 1, 1)})`;
}
