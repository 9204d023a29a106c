import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoUserId, secondDemoUserId } from '../demo-market.js';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';
import { addPositionHistory } from './position-history.js';
import { tradeHistory } from './trade-history.js';

describe("a user's loans read from the store, a page at a time", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
    const added = (userId: number, lenderId: number, positions: number) =>
      sandbox.database.transaction((tx) =>
        addPositionHistory(tx, {
          positions,
          userId,
          lenderId,
          productId: 1,
          currency: 'JPY',
          since: Date.now(),
        }),
      );
    // Borrowed, then lent, then both at once: a loan written by another writer to oneself.
    await added(demoUserId, secondDemoUserId, 23);
    await added(secondDemoUserId, demoUserId, 19);
    await added(demoUserId, demoUserId, 4);
    await added(demoUserId, secondDemoUserId, 7);
  });
  afterAll(() => sandbox.close());

  it('are every loan the user is a party to, once each, newest first, whatever the page', async () => {
    const { rows } = await sandbox.database.read((tx) =>
      tx.query<{ id: string }>(
        `SELECT id FROM loans WHERE (lender_id = $1 OR borrower_id = $1) AND currency = 'JPY'
         ORDER BY id DESC`,
        [demoUserId],
      ),
    );
    const expected = rows.map((row) => Number(row.id));
    expect(expected.length).toBeGreaterThanOrEqual(53);
    const { loans } = tradeHistory(sandbox.database);
    for (const limit of [1, 5, 20]) {
      const read: number[] = [];
      for (let offset = 0; offset <= expected.length; offset += limit) {
        const page = await loans(demoUserId, 'JPY', offset, limit);
        expect(page.total).toBe(expected.length);
        read.push(...page.rows.map((loan) => loan.id));
      }
      expect(read).toEqual(expected);
    }
  });
});
