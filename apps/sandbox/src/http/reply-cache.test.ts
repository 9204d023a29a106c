import {
  zGetPriceLevelsResponse,
  zGetProductResponse,
  zListProductsResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveMarkPrice } from '../exchange/position-exits.js';
import { addProduct } from '../seeding.js';
import type { RunningSandbox } from '../server.js';
import { D } from '../state/records.js';
import { type Client, demoClient, startTestSandbox, valid } from '../test-support.js';
import { ReplyCache } from './reply-cache.js';

let sandbox: RunningSandbox;
let call: Client;
let clock = Date.now();

beforeAll(async () => {
  sandbox = await startTestSandbox({ now: () => clock });
  call = demoClient(sandbox);
});
afterAll(() => sandbox.close());

const levels = async (productId: number) =>
  valid(
    zGetPriceLevelsResponse,
    await call('GET', `/products/${productId}/price_levels`, { anonymous: true }),
  );

describe('public reads kept between changes', () => {
  it('shows an order in the book as soon as its placement is answered', async () => {
    const product = await sandbox.sequencer.run((journal) =>
      addProduct(journal, { base: 'BTC', quote: 'JPY' }),
    );
    expect((await levels(product)).buy_price_levels).toEqual([]);
    // Asked twice with nothing in between: the second answer is the kept one.
    expect((await levels(product)).buy_price_levels).toEqual([]);
    const placed = await call('POST', '/orders', {
      body: {
        order_type: 'limit',
        product_id: product,
        side: 'buy',
        quantity: '0.5',
        price: '100',
      },
    });
    expect(placed.status).toBe(200);
    expect((await levels(product)).buy_price_levels).toEqual([['100', '0.5']]);
  });

  it('shows a mark price moved as soon as the move is answered', async () => {
    const product = await sandbox.sequencer.run((journal) =>
      addProduct(journal, { base: 'BTC', quote: 'USD', perpetual: true, perpetualEnabled: true }),
    );
    const read = async () =>
      valid(zGetProductResponse, await call('GET', `/products/${product}`, { anonymous: true }))
        .mark_price;
    expect([await read(), await read()]).toEqual([null, null]);
    await sandbox.sequencer.run((journal) =>
      moveMarkPrice(journal, product, new D('61000'), clock),
    );
    expect(await read()).toBe('61000');
  });

  it('lists a product added by a seeding command at the next read', async () => {
    const before = valid(
      zListProductsResponse,
      await call('GET', '/products', { anonymous: true }),
    );
    const added = await sandbox.sequencer.run((journal) =>
      addProduct(journal, { base: 'ETH', quote: 'JPY' }),
    );
    const after = valid(zListProductsResponse, await call('GET', '/products', { anonymous: true }));
    expect(after.map((product) => product.id)).toEqual([
      ...before.map((product) => product.id),
      String(added),
    ]);
  });

  it('moves the timestamp on once the clock has moved a second', async () => {
    const first = await levels(1);
    clock += 400;
    expect((await levels(1)).timestamp).toBe(first.timestamp);
    clock += 700;
    expect(Number((await levels(1)).timestamp)).toBeCloseTo(Number(first.timestamp) + 1.1, 3);
  });

  it('answers a product added after a 404 for it', async () => {
    const missing = await call('GET', '/products/999999/price_levels', { anonymous: true });
    expect(missing.status).toBe(404);
    await sandbox.sequencer.run((journal) =>
      addProduct(journal, { id: 999999, base: 'XRP', quote: 'JPY' }),
    );
    expect((await levels(999999)).sell_price_levels).toEqual([]);
  });
});

describe('ReplyCache', () => {
  const reply = (text: string) => ({ status: 200, headers: {}, bytes: Buffer.from(text) });

  it('forgets an answer once the generation moves or it grows too old', () => {
    const cache = new ReplyCache(1000, 8);
    cache.set('/a', 1, 5000, reply('a'));
    expect(cache.get('/a', 1, 5999)?.bytes.toString()).toBe('a');
    expect(cache.get('/a', 1, 6000)).toBeUndefined();
    cache.set('/a', 1, 5000, reply('a'));
    expect(cache.get('/a', 2, 5000)).toBeUndefined();
    cache.set('/a', 1, 5000, reply('a'));
    expect(cache.get('/a', 1, 4999)).toBeUndefined();
  });

  it('holds a bounded number of URLs', () => {
    const cache = new ReplyCache(1000, 8);
    for (let n = 0; n < 100; n++) cache.set(`/products?n=${n}`, 1, 0, reply(String(n)));
    const kept = Array.from({ length: 100 }, (_, n) => cache.get(`/products?n=${n}`, 1, 0));
    expect(kept.filter(Boolean).length).toBeLessThanOrEqual(8);
    expect(kept[99]?.bytes.toString()).toBe('99');
  });
});
