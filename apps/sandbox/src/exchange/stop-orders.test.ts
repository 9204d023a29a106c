import {
  zCancelAllOrdersResponse,
  zEditOrderResponse,
  zGetPriceLevelsResponse,
  zListOrdersResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import * as trading from '../testing/trading.js';
import { balances, getOrder, place } from '../testing/trading.js';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const tradeAt = (product_id: number, price: string) => trading.tradeAt(sandbox, product_id, price);

/** A product with an empty book whose last trade was at `price`. */
async function tradedAt(price: string, options: { margin?: boolean } = {}): Promise<number> {
  const product_id = await trading.freshProduct(sandbox, options);
  await tradeAt(product_id, price);
  return product_id;
}

async function book(call: Client, product_id: number) {
  return valid(zGetPriceLevelsResponse, await call('GET', `/products/${product_id}/price_levels`));
}

describe('stop orders', () => {
  it('wait outside the book holding their funds, and cancel_all cancels them', async () => {
    const product_id = await tradedAt('100');
    const { call } = sandbox.addUser();
    const sell = await place(call, { product_id, order_type: 'stop', side: 'sell', price: '90' });
    const buy = await place(call, { product_id, order_type: 'stop', price: '110' });
    expect(sell).toMatchObject({ status: 'live', order_type: 'stop', price: '90' });
    expect(buy).toMatchObject({ status: 'live', order_type: 'stop', price: '110' });
    expect(await book(call, product_id)).toMatchObject({
      buy_price_levels: [],
      sell_price_levels: [],
    });
    expect((await balances(call, 'BTC')).reserved).toBe('0.01');
    expect((await balances(call, 'JPY')).reserved).toBe('1.1');
    const result = valid(zCancelAllOrdersResponse, await call('PUT', '/orders/cancel_all'));
    expect(result.models.map((model) => model.id)).toEqual([sell.id, buy.id]);
    expect((await balances(call, 'BTC')).reserved).toBe('0');
    expect((await balances(call, 'JPY')).reserved).toBe('0');
  });

  it('refuses a stop that the last traded price has already reached, and keeps nothing', async () => {
    const product_id = await tradedAt('100');
    const { call } = sandbox.addUser();
    for (const [side, price] of [
      ['buy', '95'],
      ['sell', '100'],
    ]) {
      const answer = await call('POST', '/orders', {
        body: { product_id, order_type: 'stop', side, price, quantity: '0.01' },
      });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ errors: { price: ['would_trigger_immediately'] } });
    }
    expect(valid(zListOrdersResponse, await call('GET', '/orders')).models).toEqual([]);
  });

  it('sells at market once a trade reaches a stop sell, leaving the stops not reached', async () => {
    const product_id = await tradedAt('100');
    const trader = sandbox.addUser();
    const bidder = sandbox.addUser();
    const stop = await place(trader.call, {
      product_id,
      order_type: 'stop',
      side: 'sell',
      price: '90',
    });
    const lower = await place(trader.call, {
      product_id,
      order_type: 'stop',
      side: 'sell',
      price: '80',
    });
    await place(bidder.call, { product_id, price: '85', quantity: '0.02' });
    await tradeAt(product_id, '95');
    expect(await getOrder(trader.call, stop.id)).toMatchObject({ status: 'live', price: '90' });
    await tradeAt(product_id, '90');
    expect(await getOrder(trader.call, stop.id)).toMatchObject({
      status: 'filled',
      filled_quantity: '0.01',
      average_price: '85',
    });
    expect((await getOrder(trader.call, lower.id)).status).toBe('live');
    expect(await balances(trader.call, 'BTC')).toEqual({ balance: '9.99', reserved: '0.01' });
    expect(await balances(trader.call, 'JPY')).toEqual({ balance: '100000000.85', reserved: '0' });
  });

  it('cancels a triggered stop that finds nothing to take; the trade that triggered it stands', async () => {
    const product_id = await tradedAt('100');
    const trader = sandbox.addUser();
    const stop = await place(trader.call, { product_id, order_type: 'stop', price: '105' });
    const { bought, sold, buyer } = await tradeAt(product_id, '105');
    expect(sold.status).toBe('filled');
    expect((await getOrder(buyer.call, bought.id)).status).toBe('filled');
    expect(await getOrder(trader.call, stop.id)).toMatchObject({
      status: 'cancelled',
      filled_quantity: '0',
    });
    expect((await balances(trader.call, 'JPY')).reserved).toBe('0');
  });

  it('cancels a triggered margin stop its owner cannot pay for, not the call that triggered it', async () => {
    const product_id = await tradedAt('100', { margin: true });
    const trader = sandbox.addUser();
    const asker = sandbox.addUser();
    const margin = { trading_type: 'margin', leverage_level: 1 };
    const stop = await place(trader.call, {
      product_id,
      order_type: 'stop',
      price: '101',
      quantity: '1000',
      ...margin,
    });
    expect((await balances(trader.call, 'JPY')).reserved).toBe('101000');
    // A fill of 1000 at 1,000,000 would take 1e9 JPY of margin; the trader has 1e8.
    await place(asker.call, {
      product_id,
      side: 'sell',
      price: '1000000',
      quantity: '1000',
      ...margin,
      leverage_level: 100,
    });
    const { sold } = await tradeAt(product_id, '101');
    expect(sold.status).toBe('filled');
    expect((await getOrder(trader.call, stop.id)).status).toBe('cancelled');
    expect((await balances(trader.call, 'JPY')).reserved).toBe('0');
  });
});

describe('trailing stop orders', () => {
  it('follow the price up, never down, and sell once it falls back by their distance', async () => {
    const product_id = await tradedAt('100');
    const trader = sandbox.addUser();
    const bidder = sandbox.addUser();
    const trailing = await place(trader.call, {
      product_id,
      order_type: 'trailing_stop',
      side: 'sell',
      trailing_stop_type: 'fiat',
      trailing_stop_value: '10',
    });
    expect(trailing).toMatchObject({ status: 'live', price: '90' });
    // With its details, the order says how it trails: what it was placed with.
    const detailed = await trader.call('GET', `/orders/${trailing.id}?with_details=1`);
    expect(detailed.body).toMatchObject({ trailing_stop_type: 'fiat', trailing_stop_value: '10' });
    const limit = await place(trader.call, { product_id, side: 'sell', price: '200' });
    const plain = await trader.call('GET', `/orders/${limit.id}?with_details=1`);
    expect(plain.body).toMatchObject({
      trailing_stop_type: null,
      trailing_stop_value: null,
      settings: null,
    });
    await trader.call('PUT', `/orders/${limit.id}/cancel`);
    await tradeAt(product_id, '120');
    expect((await getOrder(trader.call, trailing.id)).price).toBe('110');
    await tradeAt(product_id, '115');
    expect(await getOrder(trader.call, trailing.id)).toMatchObject({
      status: 'live',
      price: '110',
    });
    expect((await balances(trader.call, 'BTC')).reserved).toBe('0.01');
    await place(bidder.call, { product_id, price: '105', quantity: '0.02' });
    await tradeAt(product_id, '110');
    expect(await getOrder(trader.call, trailing.id)).toMatchObject({
      status: 'filled',
      average_price: '105',
    });
    expect(await balances(trader.call, 'BTC')).toEqual({ balance: '9.99', reserved: '0' });
  });

  it('follow the price down by a percentage for a buy, holding less as they go', async () => {
    const product_id = await tradedAt('100');
    const trader = sandbox.addUser();
    const asker = sandbox.addUser();
    const trailing = await place(trader.call, {
      product_id,
      order_type: 'trailing_stop',
      trailing_stop_type: 'percentage',
      trailing_stop_value: '5',
    });
    expect(trailing.price).toBe('105');
    expect((await balances(trader.call, 'JPY')).reserved).toBe('1.05');
    await tradeAt(product_id, '80');
    expect((await getOrder(trader.call, trailing.id)).price).toBe('84');
    expect((await balances(trader.call, 'JPY')).reserved).toBe('0.84');
    await place(asker.call, { product_id, side: 'sell', price: '86', quantity: '0.02' });
    await tradeAt(product_id, '84');
    expect(await getOrder(trader.call, trailing.id)).toMatchObject({
      status: 'filled',
      average_price: '86',
    });
    expect((await balances(trader.call, 'JPY')).reserved).toBe('0');
  });

  it('take a new quantity but not a price, which follows the market', async () => {
    const product_id = await tradedAt('100');
    const { call } = sandbox.addUser();
    const trailing = await place(call, {
      product_id,
      order_type: 'trailing_stop',
      side: 'sell',
      trailing_stop_type: 'fiat',
      trailing_stop_value: '10',
    });
    const refused = await call('PUT', `/orders/${trailing.id}`, { body: { price: '95' } });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ errors: { price: ['follows_the_market'] } });
    const edited = valid(
      zEditOrderResponse,
      await call('PUT', `/orders/${trailing.id}`, { body: { quantity: '0.02' } }),
    );
    expect(edited).toMatchObject({ quantity: '0.02', price: '90', status: 'live' });
    expect((await balances(call, 'BTC')).reserved).toBe('0.02');
  });
});

describe('stop and trailing stop input', () => {
  const refusals: [string, Record<string, unknown>, Record<string, string[]>][] = [
    ['a stop without a price', { order_type: 'stop' }, { price: ['required'] }],
    [
      'a trailing stop without its type',
      { order_type: 'trailing_stop', trailing_stop_value: '10' },
      { trailing_stop_type: ['required'] },
    ],
    [
      'a trailing stop of an unknown type',
      { order_type: 'trailing_stop', trailing_stop_type: 'points', trailing_stop_value: '10' },
      { trailing_stop_type: ['must_be_one_of:fiat,percentage'] },
    ],
    [
      'a trailing stop without its value',
      { order_type: 'trailing_stop', trailing_stop_type: 'fiat' },
      { trailing_stop_value: ['required'] },
    ],
    [
      'a trailing stop of 100 percent',
      { order_type: 'trailing_stop', trailing_stop_type: 'percentage', trailing_stop_value: '100' },
      { trailing_stop_value: ['must_be_less_than_100'] },
    ],
    [
      'a trailing sell as far as the price',
      {
        order_type: 'trailing_stop',
        side: 'sell',
        trailing_stop_type: 'fiat',
        trailing_stop_value: '100',
      },
      { trailing_stop_value: ['must_be_less_than_the_price'] },
    ],
    [
      "a stop carrying a trailing stop's type, a field of trailing stops alone",
      { order_type: 'stop', price: '110', trailing_stop_type: 'fiat' },
      { trailing_stop_type: ['unknown_field'] },
    ],
    [
      'a limit order carrying a trailing stop of -1',
      { order_type: 'limit', price: '90', trailing_stop_type: 'fiat', trailing_stop_value: '-1' },
      { trailing_stop_type: ['unknown_field'], trailing_stop_value: ['unknown_field'] },
    ],
    [
      'a market order carrying a price range, a field of market_with_range alone',
      { order_type: 'market', price_range: '5' },
      { price_range: ['unknown_field'] },
    ],
  ];
  for (const [name, body, errors] of refusals) {
    it(`refuses ${name}, naming the field`, async () => {
      const product_id = await tradedAt('100');
      const { call } = sandbox.addUser();
      const answer = await call('POST', '/orders', {
        body: { product_id, side: 'buy', quantity: '0.01', ...body },
      });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ errors });
      expect(valid(zListOrdersResponse, await call('GET', '/orders')).models).toEqual([]);
    });
  }

  it('refuses a wrapped limit order carrying a price range, naming the field', async () => {
    const product_id = await tradedAt('100');
    const { call } = sandbox.addUser();
    const order = { product_id, side: 'buy', quantity: '0.01', order_type: 'limit', price: '90' };
    const answer = await call('POST', '/orders', {
      body: { order: { ...order, price_range: '5' } },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: { 'order.price_range': ['unknown_field'] } });
    expect(valid(zListOrdersResponse, await call('GET', '/orders')).models).toEqual([]);
  });

  it('refuses a trailing stop on a product that has never traded', async () => {
    const product_id = await trading.freshProduct(sandbox);
    const { call } = sandbox.addUser();
    const answer = await call('POST', '/orders', {
      body: {
        product_id,
        order_type: 'trailing_stop',
        side: 'sell',
        quantity: '0.01',
        trailing_stop_type: 'fiat',
        trailing_stop_value: '10',
      },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: { product_id: ['no_last_traded_price'] } });
  });
});
