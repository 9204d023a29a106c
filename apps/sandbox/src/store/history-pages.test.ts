import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../test-support.js';
import type { Database } from './database.js';
import { addFillHistory } from './fill-history.js';
import { addLedgerHistory } from './ledger-history.js';
import { addOrderHistory } from './order-history.js';
import { rowsRead } from './rows-read.test-support.js';
import { demoUserId } from './seed.js';
import { storedHistory } from './stored-history.js';

const fills = 3_000;
const entries = 6_000;
const limit = 20;
const offset = 100 * limit;

/**
 * The same store, read with the planner barred from walking an index in order, as it may
 * choose when its statistics are behind what the store holds: a page must still read no more
 * than its own rows.
 */
function withoutOrderedScans(database: Database): Database {
  return {
    transaction: (work) => database.transaction(work),
    read: (work) =>
      database.read(async (tx) => {
        await tx.query('SET LOCAL enable_indexscan = off');
        return work(tx);
      }),
    apply: (statements, prepared) => database.apply(statements, prepared),
    close: () => database.close(),
  };
}

/** Rows of `table` read by `read`, and what it answered. */
async function reading<T>(database: Database, table: string, read: () => Promise<T>) {
  const before = await rowsRead(database, table);
  const answer = await read();
  return { answer, rowsRead: (await rowsRead(database, table, before + limit)) - before };
}

describe('a page of history read from the store', () => {
  it('reads its own rows alone, whatever order the planner walks them in', async () => {
    const sandbox = await startTestSandbox();
    try {
      const { database } = sandbox;
      await database.transaction(async (tx) => {
        const since = Date.now() - fills * 1000;
        await addOrderHistory(tx, { orders: 100, userId: demoUserId, productId: 1, since });
        await addFillHistory(tx, { fills, userId: demoUserId, productId: 1, since, every: 1 });
        await addLedgerHistory(tx, { entries, userId: demoUserId, currency: 'XRP', since });
        // With the statistics of the rows added: a plan made without them is another story.
        await tx.query('ANALYZE');
      });
      const planned = storedHistory(database).reads;
      const barred = storedHistory(withoutOrderedScans(database)).reads;

      // The count of a user's own fills (every fill is theirs twice over) is read whole that
      // way: the page must add no more than its own rows.
      const ownFills = await planned.ownFills(demoUserId, 1, offset, limit);
      expect(ownFills.rows).toHaveLength(limit);
      const deep = await reading(database, 'own_fills', () =>
        barred.ownFills(demoUserId, 1, offset, limit),
      );
      expect(deep.answer).toEqual(ownFills);
      expect(deep.rowsRead).toBeLessThan(2 * fills + 10 * limit);

      const xrp = { currency: 'XRP' };
      const page = await planned.entries(demoUserId, xrp, offset, limit);
      expect(page).toHaveLength(limit);
      const entriesRead = await reading(database, 'ledger_entries', () =>
        barred.entries(demoUserId, xrp, offset, limit),
      );
      expect(entriesRead.answer).toEqual(page);
      expect(entriesRead.rowsRead).toBeLessThan(10 * limit);
    } finally {
      await sandbox.close();
    }
  });
});
