import { zGetProductResponse } from '@exchange-kit/contract/exchange/schemas';
import { describe, expect, it } from 'vitest';
import { D } from '../state/records.js';
import { valid } from '../test-support.js';
import { memorySandbox } from '../testing/memory-sandbox.js';
import { freshProduct, place, tradeAt } from '../testing/trading.js';
import { moveMarkPrice } from './position-exits.js';

describe('a product', () => {
  it('names its events channel, and when its market last moved: its last fill', async () => {
    let clock = 1_716_000_000_250;
    const sandbox = await memorySandbox({ now: () => clock });
    const productId = await freshProduct(sandbox, { base: 'ETH', quote: 'BTC', tick: '0.00001' });
    const product = async () =>
      valid(
        zGetProductResponse,
        await sandbox.request('GET', `/products/${productId}`, { anonymous: true }),
      );
    expect(await product()).toMatchObject({
      pusher_channel: `product_cash_ethbtc_${productId}`,
      last_event_timestamp: null,
    });
    expect(await product()).not.toHaveProperty('mark_price');
    expect((await product()).average_price).toBeNull();
    await tradeAt(sandbox, productId, '0.05');
    clock += 60_000;
    expect((await product()).last_event_timestamp).toBe('1716000000.250');
    // 0.001 at 0.05 and 0.002 at 0.06: 0.00017 traded for 0.003, weighted 0.05666666...
    const buyer = sandbox.addUser();
    await place(sandbox.addUser().call, {
      product_id: productId,
      side: 'sell',
      price: '0.06',
      quantity: '0.002',
    });
    await place(buyer.call, { product_id: productId, price: '0.06', quantity: '0.002' });
    expect(await product()).toMatchObject({
      average_price: '0.05666666',
      last_event_timestamp: '1716000060.250',
    });
    // A day on, the fills are out of the figures: the last event stays.
    clock += 24 * 60 * 60 * 1000;
    expect(await product()).toMatchObject({
      average_price: null,
      last_event_timestamp: '1716000060.250',
    });
  });

  it('a perpetual carries its mark price as its index and fair prices, and no funding', async () => {
    const sandbox = await memorySandbox();
    const productId = await freshProduct(sandbox, {
      type: 'Perpetual',
      code: 'P-BTCUSD',
      quote: 'USD',
      tick: '0.5',
      perpetual: true,
      perpetualEnabled: true,
    });
    const product = async () =>
      valid(
        zGetProductResponse,
        await sandbox.request('GET', `/products/${productId}`, { anonymous: true }),
      );
    expect(await product()).toMatchObject({
      code: 'P-BTCUSD',
      index_price: null,
      mark_price: null,
      fair_price: null,
      funding_rate: '0',
    });
    await tradeAt(sandbox, productId, '60000');
    expect(await product()).toMatchObject({ mark_price: '60000', index_price: '60000' });
    await sandbox.sequencer.run((journal) =>
      moveMarkPrice(journal, productId, new D('61000.5'), sandbox.now()),
    );
    expect(await product()).toMatchObject({
      index_price: '61000.5',
      mark_price: '61000.5',
      fair_price: '61000.5',
      funding_rate: '0',
    });
  });
});
