import { zListBalanceHistoryResponse } from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { balances, freshProduct, place } from '../testing/trading.js';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const history = async (call: Client, query = '') =>
  valid(zListBalanceHistoryResponse, await call('GET', `/balance_history${query}`));

describe('the ledger', () => {
  it('explains a new user’s balances with one funding entry each', async () => {
    const user = sandbox.addUser();
    const entries = await history(user.call, '?currency=JPY');
    expect(entries).toMatchObject([
      { amount: '100000000', balance: '100000000', source_action: 'funding' },
    ]);
    expect(entries[0]).toMatchObject({ source_object_type: null, source_object_id: null });
  });

  it('posts each side of a spot fill as trade entries against the execution', async () => {
    const product_id = await freshProduct(sandbox);
    const [seller, buyer] = [sandbox.addUser(), sandbox.addUser()];
    await place(seller.call, { product_id, side: 'sell', price: '1425', quantity: '1.00000015' });
    await place(buyer.call, { product_id, side: 'buy', price: '1425', quantity: '1.00000015' });
    const [jpy] = await history(buyer.call, '?currency=JPY&source_action=trade');
    const [btc] = await history(buyer.call, '?currency=BTC&source_action=trade');
    expect(jpy).toMatchObject({ amount: '-1425.00021375', balance: '99998574.99978625' });
    expect(btc).toMatchObject({ amount: '1.00000015', balance: '11.00000015' });
    expect(btc?.source_object_type).toBe('Execution');
    expect(jpy?.source_object_id).toBe(btc?.source_object_id);
    expect((await balances(buyer.call, 'JPY')).balance).toBe(jpy?.balance);
    const sold = await history(seller.call, '?currency=JPY&limit=10');
    expect(sold.map((entry) => entry.source_action)).toEqual(['trade', 'funding']);
    expect(sold[0]).toMatchObject({ amount: '1425.00021375', balance: '100001425.00021375' });
  });
});
