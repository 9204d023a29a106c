import { operationTable } from '@exchange-kit/contract/exchange';
import { zEditOrderResponse, zListOrdersResponse } from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { place } from '../testing/trading.js';

let sandbox: MemorySandbox;
// Empty books with the seed's currencies: BTC (8 places, at least 0.0001), XRP (6 places, at
// least 1); ticks of 0.5 JPY and 0.001 JPY.
let btcHalfYen: number;
let xrp: number;

beforeAll(async () => {
  sandbox = await memorySandbox();
  btcHalfYen = sandbox.addProduct({ base: 'BTC', quote: 'JPY', tick: '0.5' });
  xrp = sandbox.addProduct({ base: 'XRP', quote: 'JPY', tick: '0.001' });
});

const documented = (operation: 'createOrder' | 'editOrder', field: 'price' | 'quantity') =>
  operationTable[operation].errorCodes[field] as readonly string[];

describe('prices on the tick, quantities on the step', () => {
  const refusals: [string, Record<string, unknown>, Record<string, string[]>][] = [
    [
      'a limit price off the tick',
      { price: '9000000.25' },
      { price: ['not_a_multiple_of_the_tick_size'] },
    ],
    [
      'a stop price off the tick',
      { order_type: 'stop', price: '9999999.9' },
      { price: ['not_a_multiple_of_the_tick_size'] },
    ],
    [
      'a post-only price off the tick',
      { order_type: 'limit_post_only', price: '0.1' },
      { price: ['not_a_multiple_of_the_tick_size'] },
    ],
    [
      'a quantity below the minimum',
      { price: '9000000', quantity: '0.00009' },
      { quantity: ['less_than_order_size'] },
    ],
    [
      'a quantity beyond the base currency’s 8 places',
      { price: '9000000', quantity: '0.000100001' },
      { quantity: ['not_a_multiple_of_the_quantity_step'] },
    ],
  ];
  for (const [name, body, errors] of refusals) {
    it(`refuses ${name} with a 422 naming the field`, async () => {
      const { call } = sandbox.addUser();
      const answer = await call('POST', '/orders', {
        body: {
          order_type: 'limit',
          product_id: btcHalfYen,
          side: 'buy',
          quantity: '0.01',
          ...body,
        },
      });
      expect(answer).toMatchObject({ status: 422, body: { errors } });
      for (const [field, codes] of Object.entries(errors)) {
        for (const code of codes)
          expect(documented('createOrder', field as 'price')).toContain(code);
      }
      expect(valid(zListOrdersResponse, await call('GET', '/orders')).models).toEqual([]);
    });
  }

  it('takes what is on the tick and on the step, written any way', async () => {
    const { call } = sandbox.addUser();
    const order = await place(call, {
      product_id: btcHalfYen,
      price: '9000000.50',
      quantity: '0.00010000',
    });
    expect(order).toMatchObject({ status: 'live', price: '9000000.5', quantity: '0.0001' });
    const coins = await place(call, { product_id: xrp, price: '79.875', quantity: '12.000001' });
    expect(coins).toMatchObject({ status: 'live', price: '79.875', quantity: '12.000001' });
    const offStep = await call('POST', '/orders', {
      body: {
        order_type: 'limit',
        product_id: xrp,
        side: 'buy',
        price: '79.875',
        quantity: '12.0000001',
      },
    });
    expect(offStep).toMatchObject({
      status: 422,
      body: { errors: { quantity: ['not_a_multiple_of_the_quantity_step'] } },
    });
  });

  it('refuses an edit off the tick or the step, and keeps the order as it was', async () => {
    const { call } = sandbox.addUser();
    const order = await place(call, { product_id: btcHalfYen, price: '9000000' });
    const price = await call('PUT', `/orders/${order.id}`, { body: { price: '9000000.1' } });
    expect(price).toMatchObject({
      status: 422,
      body: { errors: { price: ['not_a_multiple_of_the_tick_size'] } },
    });
    const quantity = await call('PUT', `/orders/${order.id}`, {
      body: { order: { quantity: '0.123456789' } },
    });
    expect(quantity).toMatchObject({
      status: 422,
      body: { errors: { quantity: ['not_a_multiple_of_the_quantity_step'] } },
    });
    expect(documented('editOrder', 'price')).toContain('not_a_multiple_of_the_tick_size');
    expect(documented('editOrder', 'quantity')).toContain('not_a_multiple_of_the_quantity_step');
    const edited = valid(
      zEditOrderResponse,
      await call('PUT', `/orders/${order.id}`, { body: { price: '9000000.5', quantity: '0.02' } }),
    );
    expect(edited).toMatchObject({ price: '9000000.5', quantity: '0.02' });
  });
});

describe('the fields each type of order requires', () => {
  const refusals: [string, Record<string, unknown>, Record<string, string[]>][] = [
    ['a limit order without a price', { order_type: 'limit' }, { price: ['required'] }],
    [
      'a post-only order without a price',
      { order_type: 'limit_post_only' },
      { price: ['required'] },
    ],
    [
      'a ranged market order without its range',
      { order_type: 'market_with_range' },
      { price_range: ['required'] },
    ],
    ['an order without a type', {}, { order_type: ['required'] }],
    [
      'an order of an unknown type',
      { order_type: 'limitt', price: '9000000' },
      {
        order_type: [
          'must_be_one_of:limit,limit_post_only,market,market_with_range,stop,trailing_stop',
        ],
      },
    ],
  ];
  for (const [name, body, errors] of refusals) {
    it(`refuses ${name}, naming the field, flat or wrapped`, async () => {
      const { call } = sandbox.addUser();
      const order = { product_id: btcHalfYen, side: 'buy', quantity: '0.01', ...body };
      const flat = await call('POST', '/orders', { body: order });
      expect(flat).toMatchObject({ status: 422, body: { errors } });
      const wrapped = await call('POST', '/orders', { body: { order } });
      const nested = Object.fromEntries(
        Object.entries(errors).map(([field, codes]) => [`order.${field}`, codes]),
      );
      expect(wrapped).toMatchObject({ status: 422, body: { errors: nested } });
    });
  }
});
