import { type SandboxProcess, startSandboxProcess } from '@exchange-kit/sandbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createExchangeClient,
  type ExchangeClient,
  isValidationErrorOf,
  type OrderCreateInput,
  ValidationError,
} from './index.js';

// The real sandbox over loopback: every order type placed as its shape in the spec says,
// and the ones the types refuse sent anyway (as JavaScript callers can), to see the 422.
let sandbox: SandboxProcess;
let client: ExchangeClient;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  client = createExchangeClient({
    baseUrl: sandbox.exchangeUrl,
    tokenId: sandbox.tokenId,
    tokenSecret: sandbox.tokenSecret,
  });
}, 60_000);
afterAll(() => sandbox?.stop());

const base = { product_id: 1, quantity: '0.0001' } as const;

describe('each order type, with the fields it requires', () => {
  it('places every type of order', async () => {
    // The market orders trade first, so the product has the last price a trailing stop needs.
    const placed = [
      await client.orders.create({ ...base, side: 'sell', order_type: 'market' }),
      await client.orders.create({
        ...base,
        side: 'buy',
        order_type: 'market_with_range',
        price_range: 1000,
      }),
      await client.orders.create({ ...base, side: 'buy', order_type: 'limit', price: '9000000' }),
      await client.orders.create({
        ...base,
        product_id: '1',
        side: 'buy',
        order_type: 'limit_post_only',
        price: 9000001,
      }),
      await client.orders.create({ ...base, side: 'buy', order_type: 'stop', price: '9900000' }),
      await client.orders.create({
        ...base,
        side: 'sell',
        order_type: 'trailing_stop',
        trailing_stop_type: 'fiat',
        trailing_stop_value: '10000',
      }),
    ];
    expect(placed.map((order) => [order.order_type, order.status])).toEqual([
      ['market', 'filled'],
      ['market_with_range', 'filled'],
      ['limit', 'live'],
      ['limit_post_only', 'live'],
      ['stop', 'live'],
      ['trailing_stop', 'live'],
    ]);
    // A product id as a number, as everywhere else.
    const cancelled = await client.orders.cancelAll({ product_id: 1 });
    expect(cancelled.map(({ id }) => id).sort()).toEqual(
      placed
        .filter((order) => order.status === 'live')
        .map(({ id }) => id)
        .sort(),
    );
    expect(await client.orders.cancelAll({ product_id: '1' })).toEqual([]);
  });

  it.each([
    ['a limit order without a price', { order_type: 'limit' }, 'price'],
    ['a stop without its stop price', { order_type: 'stop' }, 'price'],
    ['a ranged market order without its range', { order_type: 'market_with_range' }, 'price_range'],
    [
      'a trailing stop without its value',
      { order_type: 'trailing_stop', trailing_stop_type: 'fiat' },
      'trailing_stop_value',
    ],
    [
      'a trailing stop without its type',
      { order_type: 'trailing_stop', trailing_stop_value: '10000' },
      'trailing_stop_type',
    ],
  ] as const)('refuses %s with a 422 naming %s', async (_, fields, field) => {
    const order = { ...base, side: 'buy', ...fields } as unknown as OrderCreateInput;
    const error = await client.orders.create(order).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect(isValidationErrorOf(error, 'createOrder') && error.fields).toEqual({
      [field]: ['required'],
    });
  });

  it('refuses a trailing stop type the spec does not have, listing the ones it has', async () => {
    const order = {
      ...base,
      side: 'sell',
      order_type: 'trailing_stop',
      trailing_stop_type: 'percent',
      trailing_stop_value: '2',
    } as unknown as OrderCreateInput;
    await expect(client.orders.create(order)).rejects.toMatchObject({
      status: 422,
      fields: { trailing_stop_type: ['must_be_one_of:fiat,percentage'] },
    });
  });
});
