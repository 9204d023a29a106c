import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoUserId, secondDemoUserId } from '../demo-market.js';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';
import { addPositionHistory, addUnplacedLoans, addUnplacedPosition } from './position-history.js';
import { tradeHistory } from './trade-history.js';

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
  // And one written without its place, as another writer would: the store's trigger places it.
  await sandbox.database.transaction((tx) => addUnplacedPosition(tx, demoUserId));
  // And loans written so, in one statement: lent, borrowed, to oneself.
  await sandbox.database.transaction((tx) =>
    addUnplacedLoans(tx, 'JPY', [
      { lenderId: demoUserId, borrowerId: secondDemoUserId },
      { lenderId: secondDemoUserId, borrowerId: demoUserId },
      { lenderId: demoUserId, borrowerId: demoUserId },
    ]),
  );
});
afterAll(() => sandbox.close());

/** `userId`'s positions (of `status`, when given) as the store holds them, last placed first. */
const storedTrades = (userId: number, status?: string) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ id: string; place: string }>(
      `SELECT id::text AS id, user_place::text AS place FROM positions
       WHERE user_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY user_place DESC`,
      [userId, status ?? null],
    );
    return rows.map((row) => ({ id: Number(row.id), place: Number(row.place) }));
  });

describe("a user's trades read from the store, a page at a time", () => {
  it('are placed one after another, in the order they were written', async () => {
    const stored = await storedTrades(demoUserId);
    expect(stored.map((trade) => trade.place)).toEqual(
      Array.from({ length: stored.length }, (_, n) => stored.length - n),
    );
    // The one written last, without a place, took the next.
    expect(stored[0]?.id).toBe(Math.max(...stored.map((trade) => trade.id)));
  });

  it('are every position of the user once, last placed first, whatever the page', async () => {
    const { trades } = tradeHistory(sandbox.database);
    for (const status of [undefined, 'closed', 'open'] as const) {
      const expected = (await storedTrades(demoUserId, status)).map((trade) => trade.id);
      if (status !== 'open') expect(expected.length).toBeGreaterThanOrEqual(35);
      for (const limit of [1, 7, 20]) {
        const read: number[] = [];
        for (let offset = 0; offset <= expected.length; offset += limit) {
          const page = await trades(demoUserId, { status }, offset, limit);
          expect(page.total).toBe(expected.length);
          read.push(...page.rows.map((held) => held.position.id));
        }
        expect({ status, limit, read }).toEqual({ status, limit, read: expected });
      }
    }
  });
});

/** `userId`'s loans of `currency` as the store holds them, last placed first. */
const storedLoans = (userId: number, currency: string) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ id: string; place: string }>(
      `SELECT id::text AS id, party_place::text AS place
       FROM loans, CAST(CASE WHEN lender_id = $1 THEN lender_place ELSE borrower_place END
         AS bigint) AS party_place
       WHERE (lender_id = $1 OR borrower_id = $1) AND currency = $2
       ORDER BY party_place DESC`,
      [userId, currency],
    );
    return rows.map((row) => ({ id: Number(row.id), place: Number(row.place) }));
  });

describe("a user's loans read from the store, a page at a time", () => {
  it('are placed one after another, lent or borrowed, in the order they were written', async () => {
    for (const userId of [demoUserId, secondDemoUserId]) {
      const stored = await storedLoans(userId, 'JPY');
      expect(stored.map((loan) => loan.place)).toEqual(
        Array.from({ length: stored.length }, (_, n) => stored.length - n),
      );
      expect(stored.map((loan) => loan.id)).toEqual(
        stored.map((loan) => loan.id).sort((a, b) => b - a),
      );
    }
  });

  it('are every loan the user is a party to, once each, last placed first, whatever the page', async () => {
    const { loans } = tradeHistory(sandbox.database);
    for (const userId of [demoUserId, secondDemoUserId]) {
      const expected = (await storedLoans(userId, 'JPY')).map((loan) => loan.id);
      expect(expected.length).toBeGreaterThanOrEqual(userId === demoUserId ? 56 : 51);
      for (const limit of [1, 5, 20]) {
        const read: number[] = [];
        for (let offset = 0; offset <= expected.length; offset += limit) {
          const page = await loans(userId, 'JPY', offset, limit);
          expect(page.total).toBe(expected.length);
          read.push(...page.rows.map((loan) => loan.id));
        }
        expect({ userId, limit, read }).toEqual({ userId, limit, read: expected });
      }
    }
  });
});
