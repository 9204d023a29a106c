import { type SandboxProcess, startSandboxProcess } from '@exchange-kit/sandbox/testing';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExchangeClient, type ExchangeClient, InvalidDecimalError } from './index.js';
import {
  fetchMarketRules,
  type MarketRules,
  marketRules,
  precisionProblems,
  priceToPrecision,
  quantityToPrecision,
} from './precision.js';

// A product as GET /products gives it, cut to what the rules read.
const btcUsd = { id: '601', tick_size: '0.5', base_currency: 'BTC' };
const btc = { currency: 'BTC', assets_precision: 8, minimum_order_quantity: '0.0001' };
const rules = marketRules(btcUsd, [btc]);

describe('rounding to a product’s precision', () => {
  it('derives the rules from the product and its base currency', () => {
    expect(rules).toEqual({
      product_id: '601',
      tick_size: '0.5',
      quantity_step: '0.00000001',
      minimum_quantity: '0.0001',
    });
  });

  it.each([
    ['65010.3', undefined, '65010.5'],
    ['65010.2', undefined, '65010'],
    ['65010.25', undefined, '65010.5'],
    ['65010.25', 'half-even', '65010'],
    ['65010.9', 'down', '65010.5'],
    ['65010.1', 'up', '65010.5'],
    [65010.75, 'half-even', '65011'],
    [new Decimal('65010.4999999999999999999'), 'half-up', '65010.5'],
  ] as const)('price %s (%s) is %s', (price, mode, expected) => {
    expect(priceToPrecision(rules, price, mode)).toBe(expected);
  });

  it.each([
    ['0.123456789', undefined, '0.12345678'],
    ['0.123456789', 'up', '0.12345679'],
    ['0.123456785', 'half-even', '0.12345678'],
    [0.1 + 0.2, undefined, '0.3'],
    ['1', undefined, '1'],
  ] as const)('quantity %s (%s) is %s', (quantity, mode, expected) => {
    expect(quantityToPrecision(rules, quantity, mode)).toBe(expected);
  });

  it('never sends a float artefact: 0.1 + 0.2 at a tick of 0.1 is "0.3"', () => {
    expect(0.1 + 0.2).toBe(0.30000000000000004);
    expect(priceToPrecision({ tick_size: '0.1' }, 0.1 + 0.2)).toBe('0.3');
  });

  it('refuses a quantity that rounds below the minimum, naming the field', () => {
    expect(() => quantityToPrecision(rules, '0.000099999')).toThrow(
      new InvalidDecimalError('quantity', '0.00009999 is below the minimum order quantity 0.0001'),
    );
    expect(() => priceToPrecision({ tick_size: '0' }, '1')).toThrow(InvalidDecimalError);
    expect(() => priceToPrecision(rules, 'abc')).toThrow(
      new InvalidDecimalError('price', '"abc" is not a decimal number'),
    );
  });

  it('says what the exchange would refuse, with its codes', () => {
    expect(precisionProblems(rules, { price: '65010.5', quantity: '0.0001' })).toEqual({});
    expect(precisionProblems(rules, { price: '65010.3', quantity: '0.00001' })).toEqual({
      price: 'not_a_multiple_of_the_tick_size',
      quantity: 'less_than_order_size',
    });
    expect(precisionProblems(rules, { quantity: '0.000100001' })).toEqual({
      quantity: 'not_a_multiple_of_the_quantity_step',
    });
  });
});

describe('rounding against the sandbox', () => {
  let sandbox: SandboxProcess;
  let client: ExchangeClient;
  let btcJpy: MarketRules;

  beforeAll(async () => {
    sandbox = await startSandboxProcess();
    client = createExchangeClient({
      baseUrl: sandbox.exchangeUrl,
      tokenId: sandbox.tokenId,
      tokenSecret: sandbox.tokenSecret,
    });
    btcJpy = await fetchMarketRules(client, 1);
  }, 60_000);
  afterAll(() => sandbox?.stop());

  const buy = (price: string, quantity: string) =>
    client.orders.create({ order_type: 'limit', product_id: 1, side: 'buy', price, quantity });

  it('reads the rules the sandbox applies', () => {
    expect(btcJpy).toEqual({
      product_id: '1',
      tick_size: '1',
      quantity_step: '0.00000001',
      minimum_quantity: '0.0001',
    });
  });

  it('is refused off the tick and off the step, and placed once rounded', async () => {
    const price = '9000000.4';
    const quantity = '0.0012345678901';
    expect(precisionProblems(btcJpy, { price, quantity })).toEqual({
      price: 'not_a_multiple_of_the_tick_size',
      quantity: 'not_a_multiple_of_the_quantity_step',
    });
    await expect(buy(price, '0.001')).rejects.toMatchObject({
      status: 422,
      fields: { price: ['not_a_multiple_of_the_tick_size'] },
    });
    await expect(buy('9000000', quantity)).rejects.toMatchObject({
      status: 422,
      fields: { quantity: ['not_a_multiple_of_the_quantity_step'] },
    });
    await expect(buy('9000000', '0.00009')).rejects.toMatchObject({
      status: 422,
      fields: { quantity: ['less_than_order_size'] },
    });
    const order = await buy(
      priceToPrecision(btcJpy, price, 'down'),
      quantityToPrecision(btcJpy, quantity),
    );
    expect(order).toMatchObject({ status: 'live', price: '9000000', quantity: '0.00123456' });
    await client.orders.cancel({ id: order.id });
  });
});
