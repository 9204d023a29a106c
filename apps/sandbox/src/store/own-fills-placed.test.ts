import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';
import { freshProduct, place, storedTrading, type TradingSandbox } from '../testing/trading.js';

let sandbox: RunningSandbox;
let trading: TradingSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  trading = storedTrading(sandbox);
});
afterAll(() => sandbox.close());

/** `userId`'s own fills of `productId` in the store: place, fill, order, side. */
const ownFills = (userId: number, productId: number) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ place: number; fill_id: number; taker: boolean }>(
      `SELECT place, fill_id, taker FROM own_fills WHERE user_id = $1 AND product_id = $2
       ORDER BY place`,
      [userId, productId],
    );
    return rows.map((row) => `${row.place}: fill ${row.fill_id} ${row.taker ? 'taker' : 'maker'}`);
  });

const fillIds = (productId: number) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      'SELECT id FROM fills WHERE product_id = $1 ORDER BY id',
      [productId],
    );
    return rows.map((row) => Number(row.id));
  });

/**
 * A seller's offer taken by a buyer twice, then the buyer's own offer taken by the buyer: a
 * fill between two of its orders, which it sees twice.
 */
async function trades() {
  const product_id = await freshProduct(trading);
  const [buyer, seller] = [await trading.addUser(), await trading.addUser()];
  await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '1' });
  await place(buyer.call, { product_id, price: '100', quantity: '0.5' });
  await place(buyer.call, { product_id, price: '100', quantity: '0.5' });
  await place(buyer.call, { product_id, side: 'sell', price: '100', quantity: '0.2' });
  await place(buyer.call, { product_id, price: '100', quantity: '0.2' });
  await sandbox.sequencer.settled();
  return { product_id, buyer, seller };
}

describe("a user's own fills in the store", () => {
  it('are written with their places by the sandbox, the store placing none of them', async () => {
    const trigger = (action: 'DISABLE' | 'ENABLE') =>
      sandbox.database.transaction((tx) =>
        tx.query(`ALTER TABLE fills ${action} TRIGGER own_fills_placed`),
      );
    await trigger('DISABLE');
    try {
      const { product_id, buyer, seller } = await trades();
      const [first, second, own] = await fillIds(product_id);
      expect(await ownFills(buyer.userId, product_id)).toEqual([
        `1: fill ${first} taker`,
        `2: fill ${second} taker`,
        // The maker's side first: newest first, as pages list them, the taker's comes first.
        `3: fill ${own} maker`,
        `4: fill ${own} taker`,
      ]);
      expect(await ownFills(seller.userId, product_id)).toEqual([
        `1: fill ${first} maker`,
        `2: fill ${second} maker`,
      ]);
    } finally {
      await trigger('ENABLE');
    }
  });

  it('take the places after those another writer left, and the sandbox goes on from there', async () => {
    const { product_id, buyer, seller } = await trades();
    // Written beside the sandbox: the store's trigger places it.
    await sandbox.database.transaction((tx) =>
      tx.query(
        `INSERT INTO fills (product_id, taker_order_id, maker_order_id, taker_side, price,
           quantity, created_at)
         SELECT product_id, taker_order_id, maker_order_id, taker_side, price, quantity, created_at
         FROM fills WHERE product_id = $1 ORDER BY id LIMIT 1`,
        [product_id],
      ),
    );
    await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '0.1' });
    await place(buyer.call, { product_id, price: '100', quantity: '0.1' });
    await sandbox.sequencer.settled();
    const [first, second, own, beside, last] = await fillIds(product_id);
    expect(await ownFills(buyer.userId, product_id)).toEqual([
      `1: fill ${first} taker`,
      `2: fill ${second} taker`,
      `3: fill ${own} maker`,
      `4: fill ${own} taker`,
      `5: fill ${beside} taker`,
      `6: fill ${last} taker`,
    ]);
    expect(await ownFills(seller.userId, product_id)).toEqual([
      `1: fill ${first} maker`,
      `2: fill ${second} maker`,
      `3: fill ${beside} maker`,
      `4: fill ${last} maker`,
    ]);
  });
});
