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

/** The places of `userId`'s stored entries of `currency`, in the order they were written. */
const places = (userId: number, currency: string) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ currency_place: string | number }>(
      'SELECT currency_place FROM ledger_entries WHERE user_id = $1 AND currency = $2 ORDER BY id',
      [userId, currency],
    );
    return rows.map((row) => Number(row.currency_place));
  });

const oneTo = (count: number) => Array.from({ length: count }, (_, n) => n + 1);

/** A spot trade of `quantity` BTC between two new users: entries in both currencies of each. */
async function trade(quantity: string) {
  const product_id = await freshProduct(trading);
  const [buyer, seller] = [await trading.addUser(), await trading.addUser()];
  await place(seller.call, { product_id, side: 'sell', price: '100', quantity });
  await place(buyer.call, { product_id, price: '100', quantity });
  await sandbox.sequencer.settled();
  return { product_id, buyer, seller };
}

describe('a ledger entry in the store', () => {
  it('is written with its place by the sandbox, the store placing none of them', async () => {
    const trigger = (action: 'DISABLE' | 'ENABLE') =>
      sandbox.database.transaction((tx) =>
        tx.query(`ALTER TABLE ledger_entries ${action} TRIGGER ledger_entries_placed`),
      );
    await trigger('DISABLE');
    try {
      const { buyer, seller } = await trade('1');
      // Funding, the trade and its fee on the side each receives.
      expect(await places(buyer.userId, 'JPY')).toEqual(oneTo(2));
      expect(await places(buyer.userId, 'BTC')).toEqual(oneTo(3));
      expect(await places(seller.userId, 'JPY')).toEqual(oneTo(3));
    } finally {
      await trigger('ENABLE');
    }
  });

  it('takes the place after those another writer left, once the sandbox read them', async () => {
    const { product_id, buyer } = await trade('0.5');
    // Written beside the sandbox, without a place: the store's trigger places it.
    await sandbox.database.transaction((tx) =>
      tx.query(
        `INSERT INTO ledger_entries (user_id, currency, amount, balance, source_action, created_at)
         SELECT user_id, currency, 0, balance, 'funding', 0 FROM accounts
         WHERE user_id = $1 AND currency = 'JPY'`,
        [buyer.userId],
      ),
    );
    await place(buyer.call, { product_id, side: 'sell', price: '100', quantity: '0.1' });
    const seller = await trading.addUser();
    await place(seller.call, { product_id, price: '100', quantity: '0.1' });
    await sandbox.sequencer.settled();
    expect(await places(buyer.userId, 'JPY')).toEqual(oneTo(5));
  });
});
