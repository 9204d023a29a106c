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

/** The counts the store keeps of a product's fills and of a user's entries, beside the rows. */
const counts = (productId: number, userId: number) =>
  sandbox.database.read(async (tx) => {
    const number = (rows: { n: string | number }[]) => Number(rows[0]?.n ?? 0);
    const kept = {
      fills: number(
        (
          await tx.query<{ n: number }>(
            'SELECT fills AS n FROM product_fill_counts WHERE product_id = $1',
            [productId],
          )
        ).rows,
      ),
      entries: (
        await tx.query<{ kind: string; n: string }>(
          `SELECT currency || ' ' || source_action AS kind, entries::text AS n
           FROM ledger_entry_counts WHERE user_id = $1 ORDER BY kind`,
          [userId],
        )
      ).rows,
    };
    const counted = {
      fills: number(
        (
          await tx.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM fills WHERE product_id = $1',
            [productId],
          )
        ).rows,
      ),
      entries: (
        await tx.query<{ kind: string; n: string }>(
          `SELECT currency || ' ' || source_action AS kind, count(*)::text AS n
           FROM ledger_entries WHERE user_id = $1 GROUP BY currency, source_action ORDER BY kind`,
          [userId],
        )
      ).rows,
    };
    return { kept, counted };
  });

/** Two spot trades of 0.5 BTC between two new users on a product of their own. */
async function trades() {
  const product_id = await freshProduct(trading);
  const [buyer, seller] = [await trading.addUser(), await trading.addUser()];
  await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '1' });
  await place(buyer.call, { product_id, price: '100', quantity: '0.5' });
  await place(buyer.call, { product_id, price: '100', quantity: '0.5' });
  await sandbox.sequencer.settled();
  return { product_id, buyer, seller };
}

const triggers = (action: 'DISABLE' | 'ENABLE') =>
  sandbox.database.transaction(async (tx) => {
    await tx.query(`ALTER TABLE fills ${action} TRIGGER fills_counted`);
    await tx.query(`ALTER TABLE ledger_entries ${action} TRIGGER ledger_entries_counted`);
  });

describe('the counts of fills and ledger entries in the store', () => {
  it('are moved by the sandbox as it writes the rows, the store counting none of them', async () => {
    await triggers('DISABLE');
    try {
      const { product_id, buyer } = await trades();
      const { kept, counted } = await counts(product_id, buyer.userId);
      expect(kept.fills).toBe(2);
      // The trades and their fees on the side each receives, beside each currency's funding.
      expect(kept.entries).toEqual(
        expect.arrayContaining([
          { kind: 'BTC trade', n: '2' },
          { kind: 'BTC trade_fee', n: '2' },
          { kind: 'JPY funding', n: '1' },
          { kind: 'JPY trade', n: '2' },
        ]),
      );
      expect(kept).toEqual(counted);
    } finally {
      await triggers('ENABLE');
    }
  });

  it('count what another writer adds beside the sandbox once, and the sandbox goes on', async () => {
    const { product_id, buyer, seller } = await trades();
    await sandbox.database.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO ledger_entries (user_id, currency, amount, balance, source_action, created_at)
         SELECT user_id, currency, 0, balance, 'funding', 0 FROM accounts
         WHERE user_id = $1 AND currency = 'BTC'`,
        [buyer.userId],
      );
      await tx.query(
        `INSERT INTO fills (product_id, taker_order_id, maker_order_id, taker_side, price,
           quantity, created_at)
         SELECT product_id, taker_order_id, maker_order_id, taker_side, price, quantity, created_at
         FROM fills WHERE product_id = $1 ORDER BY id LIMIT 1`,
        [product_id],
      );
    });
    await place(buyer.call, { product_id, side: 'sell', price: '100', quantity: '0.1' });
    await place(seller.call, { product_id, price: '100', quantity: '0.1' });
    await sandbox.sequencer.settled();
    const { kept, counted } = await counts(product_id, buyer.userId);
    expect(kept.fills).toBe(4);
    expect(kept.entries).toContainEqual({ kind: 'BTC funding', n: '2' });
    expect(kept).toEqual(counted);
  });
});
