import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { houseUserId } from '../exchange/ledger.js';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';
import { freshProduct, place, storedTrading, type TradingSandbox } from '../testing/trading.js';
import { loadExchangeState } from './exchange-load.js';
import { addFillHistory } from './fill-history.js';
import { addOrderHistory } from './order-history.js';
import { addPositionHistory } from './position-history.js';
import { countRowsRead } from './rows-read.test-support.js';
import { demoUserId } from './seed.js';

/**
 * A start on rows written in bulk after the planner last analysed the tables: PGlite runs no
 * autovacuum, and the counts of changes that would have the sandbox analyse them belong to the
 * process that wrote them. The start's reads must not depend on statistics that describe
 * another store.
 */

const onPostgres = Boolean(process.env.SANDBOX_TEST_DATABASE_URL);

let sandbox: RunningSandbox;
let trading: TradingSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  trading = storedTrading(sandbox);
});
afterAll(() => sandbox.close());

/** The rows of `tables` a start's read of the state goes through, and the state it reads. */
const startReading = (tables: string[]) =>
  sandbox.database.read((tx) => countRowsRead(tx, tables, () => loadExchangeState(tx)));

const analyze = (tables: string) =>
  sandbox.database.transaction(async (tx) => {
    await tx.query(`ANALYZE ${tables}`);
  });

describe('a start on fills written after the planner last counted', () => {
  it('reads the last day of fills and the last fill of each open order alone', async () => {
    // A resting sell that makes every fill the planner sees.
    const product_id = await freshProduct(trading);
    const [seller, buyer] = [await trading.addUser(), await trading.addUser()];
    const resting = await place(seller.call, {
      product_id,
      side: 'sell',
      price: '100',
      quantity: '1',
    });
    for (let n = 0; n < 50; n++) await place(buyer.call, { product_id, price: '100' });
    await sandbox.sequencer.settled();
    await analyze('fills');
    // Then thirty thousand fills of another product, one a minute up to now.
    await sandbox.database.transaction(async (tx) => {
      await addOrderHistory(tx, { orders: 100, userId: demoUserId, productId: 1, since: 0 });
      await addFillHistory(tx, {
        fills: 30_000,
        userId: demoUserId,
        productId: 1,
        since: Date.now() - 30_000 * 60_000,
        every: 60_000,
      });
    });
    const { answer: state, rowsRead } = await startReading(['fills']);
    expect(state.orders.get(Number(resting.id))?.filledQuantity.toFixed()).toBe('0.5');
    expect(state.lastStoredFill.get(Number(resting.id))).toBeGreaterThan(0);
    // A day of them (1,440) and the resting sell's last, each from its index. The bound is
    // PGlite's, which runs no autovacuum; on PostgreSQL, which does, the fill before the day is
    // read by a plan of its own choosing.
    if (!onPostgres) expect(rowsRead).toBeLessThan(10_000);
  });
});

describe('a start on closed positions written after the planner last counted', () => {
  it('reads the loans of the open positions alone', async () => {
    const user = await trading.addUser();
    const history = (positions: number) =>
      sandbox.database.transaction((tx) =>
        addPositionHistory(tx, {
          positions,
          userId: user.userId,
          lenderId: houseUserId,
          productId: 1,
          currency: 'JPY',
          since: Date.now() - positions,
        }),
      );
    // A thousand open positions with their loans, as the planner counts them: every one open.
    await history(1_000);
    await sandbox.database.transaction(async (tx) => {
      await tx.query(
        `UPDATE positions SET status = 'open', closed_quantity = 0, closed_value = 0
         WHERE user_id = $1`,
        [user.userId],
      );
      await tx.query('ANALYZE positions, loans');
    });
    // Then thirty times as many closed ones, which a start must not read the loans of.
    await history(30_000);
    const { answer: state, rowsRead } = await sandbox.database.read((tx) =>
      countRowsRead(tx, ['loans'], () => loadExchangeState(tx)),
    );
    const held = [...state.positions.values()].filter((p) => p.userId === user.userId);
    expect(held).toHaveLength(1_000);
    expect(held.every((position) => position.status === 'open')).toBe(true);
    // Each open position's loans by its index, not every loan of the closed ones.
    expect(rowsRead).toBeLessThan(10_000);
  });
});
