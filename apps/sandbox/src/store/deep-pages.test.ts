import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secondDemoUserId } from '../demo-market.js';
import type { RunningSandbox } from '../server.js';
import type { HistoryReads } from '../state/history.js';
import { startTestSandbox } from '../test-support.js';
import { addFillHistory } from './fill-history.js';
import { addLedgerHistory } from './ledger-history.js';
import { addOrderHistory } from './order-history.js';
import { addPositionHistory } from './position-history.js';
import { demoUserId } from './seed.js';
import { storedHistory } from './stored-history.js';

/** Where the pages below start to read ids first: a test's store holds a few hundred rows. */
const deepOffset = 50;
const rows = 300;
const limit = 20;

describe('a deep page, read by its ids first', () => {
  let sandbox: RunningSandbox;
  let deep: HistoryReads;
  let whole: HistoryReads;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
    const since = Date.now() - 10 * rows;
    await sandbox.database.transaction(async (tx) => {
      await addOrderHistory(tx, { orders: rows, userId: demoUserId, productId: 1, since });
      await addFillHistory(tx, { fills: rows, userId: demoUserId, productId: 1, since, every: 1 });
      await addLedgerHistory(tx, { entries: rows, userId: demoUserId, currency: 'XRP', since });
      const positions = { userId: demoUserId, productId: 1, currency: 'JPY', since };
      await addPositionHistory(tx, { ...positions, positions: rows, lenderId: secondDemoUserId });
    });
    deep = storedHistory(sandbox.database, { deepOffset }).reads;
    whole = storedHistory(sandbox.database, { deepOffset: Number.POSITIVE_INFINITY }).reads;
  });
  afterAll(() => sandbox.close());

  // Each read as the ids of a page, from the offset on.
  const reads: Record<string, (history: HistoryReads, offset: number) => Promise<number[]>> = {
    trades: async (history, offset) =>
      (await history.trades(demoUserId, {}, offset, limit)).rows.map((held) => held.position.id),
    'closed trades': async (history, offset) =>
      (await history.trades(demoUserId, { status: 'closed' }, offset, limit)).rows.map(
        (held) => held.position.id,
      ),
    'entries of every currency': async (history, offset) =>
      (await history.entries(demoUserId, {}, offset, limit)).map((entry) => entry.id),
    'entries of one kind': async (history, offset) =>
      (await history.entries(demoUserId, { sourceAction: 'funding' }, offset, limit)).map(
        (entry) => entry.id,
      ),
    'entries of one currency and kind': async (history, offset) =>
      (
        await history.entries(
          demoUserId,
          { currency: 'XRP', sourceAction: 'funding' },
          offset,
          limit,
        )
      ).map((entry) => entry.id),
    "a product's fills": async (history, offset) =>
      (await history.productFills(1, offset, limit)).map((fill) => fill.id),
    orders: async (history, offset) =>
      (await history.orders(demoUserId, {}, offset, limit)).rows.map((order) => order.id),
  };

  it.each(Object.keys(reads))('of %s is the page read whole', async (name) => {
    const read = reads[name] as (typeof reads)[string];
    for (const offset of [0, deepOffset - 1, deepOffset, deepOffset + 7, rows - 5, rows + 50]) {
      const expected = await read(whole, offset);
      expect({ offset, ids: await read(deep, offset) }).toEqual({ offset, ids: expected });
      // Past the first pages, a page is not empty unless the list ended.
      if (offset <= deepOffset + 7) expect(expected).toHaveLength(limit);
    }
  });

  it('of one currency and kind is newest first, as the ids of every entry go', async () => {
    const every = await whole.entries(demoUserId, {}, 0, rows + 100);
    const picked = every
      .filter((entry) => entry.currency === 'XRP' && entry.sourceAction === 'funding')
      .map((entry) => entry.id);
    expect(picked.length).toBeGreaterThan(rows);
    for (const offset of [0, deepOffset + 7]) {
      const page = await deep.entries(
        demoUserId,
        { currency: 'XRP', sourceAction: 'funding' },
        offset,
        limit,
      );
      expect(page.map((entry) => entry.id)).toEqual(picked.slice(offset, offset + limit));
    }
  });
});
