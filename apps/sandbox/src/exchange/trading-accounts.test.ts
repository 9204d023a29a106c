import {
  zGetTradingAccountResponse,
  zGetUserContextResponse,
  zListTradingAccountsResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { D } from '../state/records.js';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { balances, freshProduct, place } from '../testing/trading.js';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const accountOf = async (call: Client, productId: number) => {
  const accounts = valid(zListTradingAccountsResponse, await call('GET', '/trading_accounts'));
  const account = accounts.find((entry) => entry.product_id === productId);
  if (!account) throw new Error(`no trading account for product ${productId}`);
  return account;
};

/** A margin order of `quantity` at `price` for `trader`, filled by a spot counterpart. */
async function openAt(
  productId: number,
  trader: Client,
  side: 'buy' | 'sell',
  quantity: string,
  price: string,
  leverage?: number,
) {
  const counterpart = sandbox.addUser();
  const order = await place(trader, {
    product_id: productId,
    side,
    price,
    quantity,
    trading_type: 'margin',
    ...(leverage === undefined ? {} : { leverage_level: leverage }),
  });
  const other = side === 'buy' ? 'sell' : 'buy';
  await place(counterpart.call, { product_id: productId, side: other, price, quantity });
  return order;
}

const moveMark = (productId: number, price: string) =>
  sandbox.sequencer.run((journal) => journal.moveMark(productId, new D(price)));

describe('trading accounts', () => {
  it('follow the open positions of their product, at the mark price', async () => {
    const productId = await freshProduct(sandbox, { margin: true });
    const trader = sandbox.addUser();
    const { balance } = await balances(trader.call, 'JPY');
    const empty = await accountOf(trader.call, productId);
    expect(empty).toMatchObject({
      funding_currency: 'JPY',
      currency_pair_code: 'BTCJPY',
      leverage_level: 1,
      pnl: '0',
      margin: '0',
      position: '0',
      balance,
      equity: balance,
      free_margin: balance,
      pusher_channel: `trading_account_${empty.id}`,
    });

    // A long of 1 at 100 (margin 50), then a short of 0.5 at 120 (margin 15): marked at 120.
    await openAt(productId, trader.call, 'buy', '1', '100', 2);
    await openAt(productId, trader.call, 'sell', '0.5', '120', 4);
    const equity = new D(balance).plus(20);
    expect(await accountOf(trader.call, productId)).toMatchObject({
      pnl: '20',
      margin: '65',
      equity: equity.toFixed(),
      free_margin: equity.minus(65).toFixed(),
      margin_percent: new D(65).div(equity).toDecimalPlaces(16, D.ROUND_DOWN).toFixed(),
      current_leverage_level: new D(180).div(equity).toDecimalPlaces(16, D.ROUND_DOWN).toFixed(),
      position: '0.5',
      long_summary: { pnl: '20', position: '1', base_open_price: '100' },
      short_summary: { pnl: '0', position: '0.5', base_open_price: '120' },
    });

    await moveMark(productId, '110');
    expect(await accountOf(trader.call, productId)).toMatchObject({
      pnl: '15',
      equity: new D(balance).plus(15).toFixed(),
      long_summary: { pnl: '10', position: '1', base_open_price: '100' },
      short_summary: { pnl: '5', position: '0.5', base_open_price: '120' },
    });
  });

  it('average the open price of three longs to 8 places, as a trade states its own', async () => {
    const productId = await freshProduct(sandbox, { margin: true });
    const trader = sandbox.addUser();
    for (const price of ['100', '100', '101'])
      await openAt(productId, trader.call, 'buy', '1', price);
    // Read against the spec, whose decimals are at most 100 characters long.
    const { id } = await accountOf(trader.call, productId);
    const path = `/trading_accounts/${id}`;
    const account = valid(zGetTradingAccountResponse, await trader.call('GET', path));
    expect(account.long_summary).toMatchObject({ position: '3', base_open_price: '100.33333333' });
  });

  it('are the trading_account_ids of the user context, and no one else reads them', async () => {
    const productId = await freshProduct(sandbox, { margin: true });
    const owner = sandbox.addUser();
    const other = sandbox.addUser();
    const { id } = await accountOf(owner.call, productId);
    const listed = valid(
      zListTradingAccountsResponse,
      await owner.call('GET', '/trading_accounts'),
    );
    const context = valid(zGetUserContextResponse, await owner.call('GET', '/user/context'));
    expect(context.trading_account_ids).toEqual(listed.map((account) => account.id));
    expect(new Set(context.trading_account_ids).size).toBe(listed.length);

    const own = valid(
      zGetTradingAccountResponse,
      await owner.call('GET', `/trading_accounts/${id}`),
    );
    expect(own.product_id).toBe(productId);
    expect((await other.call('GET', `/trading_accounts/${id}`)).status).toBe(404);
    const put = { body: { trading_account: { leverage_level: 3 } } };
    expect((await other.call('PUT', `/trading_accounts/${id}`, put)).status).toBe(404);
    expect((await owner.call('GET', `/trading_accounts/${id + 1_000_000_000}`)).status).toBe(404);
  });

  it('give new margin orders that name no leverage the level set', async () => {
    const productId = await freshProduct(sandbox, { margin: true });
    const trader = sandbox.addUser();
    const { id } = await accountOf(trader.call, productId);
    const set = await trader.call('PUT', `/trading_accounts/${id}`, {
      body: { trading_account: { leverage_level: 5 } },
    });
    expect(valid(zGetTradingAccountResponse, set).leverage_level).toBe(5);

    const order = await openAt(productId, trader.call, 'buy', '1', '100');
    expect(order.leverage_level).toBe(5);
    expect((await accountOf(trader.call, productId)).margin).toBe('20');
    const named = await openAt(productId, trader.call, 'buy', '1', '100', 2);
    expect(named.leverage_level).toBe(2);
  });

  it('refuse a leverage level outside the allowed ones, naming the field', async () => {
    const productId = await freshProduct(sandbox, { margin: true });
    const trader = sandbox.addUser();
    const { id } = await accountOf(trader.call, productId);
    for (const leverage_level of [0, 101, 2.5, '2']) {
      const answer = await trader.call('PUT', `/trading_accounts/${id}`, {
        body: { trading_account: { leverage_level } },
      });
      expect(answer.status).toBe(422);
      expect(JSON.stringify(answer.body)).toContain('trading_account.leverage_level');
    }
    const extra = await trader.call('PUT', `/trading_accounts/${id}`, {
      body: { trading_account: { leverage_level: 2 }, leverage_level: 200 },
    });
    expect(extra.status).toBe(422);
    const inner = await trader.call('PUT', `/trading_accounts/${id}`, {
      body: { trading_account: { leverage_level: 2, leverage: 2 } },
    });
    expect([inner.status, inner.body]).toEqual([
      422,
      { errors: { 'trading_account.leverage': ['unknown_field'] } },
    ]);
    expect((await accountOf(trader.call, productId)).leverage_level).toBe(1);
  });
});
