import {
  zCancelOrderResponse,
  zGetPriceLevelsResponse,
  zListOrderTradesResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCredentials } from '../config.js';
import { demoUserId } from '../demo-market.js';
import { moveMarkPrice } from '../exchange/position-exits.js';
import { type Client, type ParsedResponse, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { getOrder, place } from '../testing/trading.js';
import { D } from './records.js';

const T0 = 1_716_000_000_000;

/**
 * A live order, a cancelled one and two filled ones of the demo user (one taking the demo
 * book, one made against the second demo user), then every read of that history.
 */
const secondOf = (sandbox: MemorySandbox) =>
  sandbox.clientFor({
    tokenId: defaultCredentials.secondTokenId,
    tokenSecret: defaultCredentials.secondTokenSecret,
  });

async function historyAnswers(sandbox: MemorySandbox) {
  const demo = sandbox.clientFor(defaultCredentials);
  const second = secondOf(sandbox);
  const live = await place(demo, { product_id: 1, price: '9000000', client_order_id: 'h-live' });
  const gone = await place(demo, { product_id: 1, price: '9000000', client_order_id: 'h-gone' });
  valid(zCancelOrderResponse, await demo('PUT', `/orders/${gone.id}/cancel`));
  const taken = await place(demo, { product_id: 1, order_type: 'market', price: undefined });
  const made = await place(demo, {
    product_id: 1,
    side: 'sell',
    price: '9500000',
    client_order_id: 'h-made',
  });
  await place(second, { product_id: 1, price: '9500000' });
  const reads: [string, string, Client][] = [
    ['GET', '/orders?limit=2&page=1', demo],
    ['GET', '/orders?limit=2&page=3', demo],
    ['GET', '/orders?status=cancelled', demo],
    ['GET', '/orders?status=filled&with_details=1', demo],
    ['GET', '/orders?product_id=1&status=live&funding_currency=JPY&trading_type=spot', demo],
    ['GET', '/orders/client:h-gone', demo],
    ['GET', '/orders/client:h%00gone', demo],
    ['GET', `/orders/${gone.id}?with_details=1`, demo],
    ['GET', `/orders/${made.id}?with_details=1`, demo],
    ['GET', `/orders/${taken.id}/trades`, demo],
    ['GET', `/orders/${live.id}`, second],
    ['GET', '/executions/me?product_id=1&with_details=1', demo],
    ['GET', '/executions/me?product_id=1&limit=1&page=2', demo],
    ['GET', '/executions/me?product_id=1', second],
    ['GET', '/user/fee_tier', demo],
    ['GET', '/balance_history?limit=3', demo],
    ['GET', '/balance_history?currency=BTC&source_action=trade&limit=50', demo],
    ['GET', `/balance_history?timestamp_gte=${T0 / 1000}&timestamp_lte=${T0 / 1000}`, second],
    ['GET', '/transactions?currency=JPY&limit=2&page=2', demo],
    ['GET', '/transactions?transaction_type=trade_fee', demo],
    ['GET', '/balance_history?timestamp_gte=1.0005&timestamp_lte=100000000000000000000', demo],
    ['GET', '/transactions?limit=1000&page=9007199254740991', demo],
    ['GET', '/orders?page=1000000000000000000', demo],
    ['GET', '/executions/me?product_id=1&page=1000000000000000000', demo],
    ['GET', '/executions?product_id=1', demo],
    ['GET', '/executions?product_id=1&limit=1&page=2', demo],
    ['GET', '/executions?product_id=1&page=1000000000000000000', demo],
    ['GET', `/executions?product_id=1&timestamp=${T0 / 1000}&limit=1`, demo],
    ['GET', `/executions?product_id=1&timestamp=${T0 / 1000 + 1}`, demo],
    ['GET', '/executions?product_id=1&timestamp=100000000000000000000', demo],
    ['GET', '/products/1', demo],
    ['POST', '/orders', demo],
  ];
  const answers: Record<string, ParsedResponse> = {};
  for (const [method, path, call] of reads) {
    const body =
      method === 'POST'
        ? { order_type: 'limit', product_id: 1, side: 'buy', quantity: '0.01', price: '9000000' }
        : undefined;
    const who = call === demo ? 'demo' : 'second';
    answers[`${who} ${method} ${path}`] = await call(method, path, {
      body: body && { ...body, client_order_id: 'h-gone' },
    });
  }
  const ids = {
    live: Number(live.id),
    gone: Number(gone.id),
    taken: Number(taken.id),
    made: Number(made.id),
  };
  return { answers, ids };
}

describe('history read from the store answers as history read from memory', () => {
  let inMemory: MemorySandbox;
  let stored: MemorySandbox;
  beforeAll(async () => {
    inMemory = await memorySandbox({ now: () => T0 });
    stored = await memorySandbox({ now: () => T0, stored: true });
  });
  afterAll(async () => {
    await inMemory?.close();
    await stored?.close();
  });

  it('lists, pages and shows closed orders and fills alike, a closed order held by the store alone', async () => {
    const fromMemory = await historyAnswers(inMemory);
    const fromStore = await historyAnswers(stored);
    expect(fromStore).toEqual(fromMemory);

    const { answers, ids } = fromStore;
    expect(answers['demo GET /orders?limit=2&page=1']?.body).toMatchObject({
      current_page: 1,
      total_pages: 2,
    });
    expect(answers['demo GET /orders?status=cancelled']?.body).toMatchObject({
      models: [{ id: ids.gone, client_order_id: 'h-gone', status: 'cancelled' }],
      total_pages: 1,
    });
    expect(answers['demo GET /orders/client:h-gone']).toMatchObject({
      status: 200,
      body: { id: ids.gone, status: 'cancelled' },
    });
    expect(answers[`second GET /orders/${ids.live}`]?.status).toBe(404);
    // A client order id no row can hold names none, a bound past any row's is one at its
    // edge, rather than failing the read.
    expect(answers['demo GET /orders/client:h%00gone']?.status).toBe(404);
    expect(
      answers['demo GET /balance_history?timestamp_gte=1.0005&timestamp_lte=100000000000000000000']
        ?.status,
    ).toBe(200);
    expect(answers['demo GET /transactions?limit=1000&page=9007199254740991']?.body).toMatchObject({
      models: [],
    });
    expect(answers['demo GET /executions/me?product_id=1&with_details=1']?.body).toMatchObject({
      models: [
        { order_id: ids.made, my_side: 'sell', client_order_id: 'h-made' },
        { order_id: ids.taken, my_side: 'buy', client_order_id: null },
      ],
      total_pages: 1,
    });
    const btcTrades =
      answers['demo GET /balance_history?currency=BTC&source_action=trade&limit=50'];
    expect(btcTrades?.body).toHaveLength(2);
    expect(answers['demo GET /transactions?currency=JPY&limit=2&page=2']?.body).toMatchObject({
      current_page: 2,
    });
    // A read from a second on gives every fill of that second, however small its limit.
    const fromT0 = answers[`demo GET /executions?product_id=1&timestamp=${T0 / 1000}&limit=1`];
    expect(fromT0?.body).toHaveLength(2);
    expect(answers['demo GET /executions?product_id=1&limit=1&page=2']?.body).toMatchObject({
      models: [{ id: (fromT0?.body as { id: number }[] | undefined)?.[0]?.id }],
      total_pages: 2,
    });
    expect(answers['demo GET /products/1']?.body).toMatchObject({
      last_traded_price: '9500000',
      volume_24h: expect.not.stringMatching(/^0$/),
    });
    expect(answers['demo POST /orders']).toMatchObject({
      status: 422,
      body: { errors: { client_order_id: ['already_used'] } },
    });

    // The store answers for what closed: memory keeps the open orders, and the cancelled one
    // the last create read back to find its client order id taken.
    await stored.sequencer.settled();
    const orders = stored.sequencer.state.exchange.orders;
    expect(orders.has(ids.live)).toBe(true);
    expect(orders.get(ids.gone)?.status).toBe('cancelled');
    expect([ids.taken, ids.made].filter((id) => orders.has(id))).toEqual([]);
    expect(stored.sequencer.state.exchange.entriesByUser.of(demoUserId)).toEqual([]);
    expect(stored.sequencer.state.exchange.fillsByProduct.all()).toEqual([]);
  });

  it('keeps what each margin fill realized for its side', async () => {
    // A long of the second demo user against the demo book, closed at once across the spread.
    const roundTrip = async (sandbox: MemorySandbox) => {
      const second = secondOf(sandbox);
      const opening = await place(second, {
        product_id: 1,
        order_type: 'market',
        price: undefined,
        trading_type: 'margin',
        leverage_level: 2,
      });
      const { trade_id } = await getOrder(second, opening.id);
      await second('PUT', `/trades/${trade_id}/close`, { body: {} });
      const own = await second('GET', '/executions/me?product_id=1&limit=2&with_details=1');
      const models = (own.body as { models: { order_id: number }[] }).models;
      // Order ids need not match between the two sandboxes: each fill's order is held instead.
      expect(models[1]?.order_id).toBe(Number(opening.id));
      for (const model of models) model.order_id = 0;
      return {
        own,
        paid: await second('GET', '/balance_history?currency=JPY&source_action=cfd_pnl'),
      };
    };
    const fromMemory = await roundTrip(inMemory);
    const fromStore = await roundTrip(stored);
    expect(fromStore).toEqual(fromMemory);
    const [paid] = fromStore.paid.body as { amount: string }[];
    expect(Number(paid?.amount)).toBeLessThan(0);
    expect(fromStore.own.body).toMatchObject({
      models: [
        { my_side: 'sell', target: 'margin', pnl: paid?.amount },
        { my_side: 'buy', target: 'margin', pnl: '0' },
      ],
    });
    await stored.sequencer.settled();
    expect(stored.sequencer.state.exchange.fillsByProduct.all()).toEqual([]);
  });

  it('reads every trade of an order from the store, the first after it was liquidated', async () => {
    // A margin bid of the second demo user rests between the book's sides; the demo user sells
    // into it, the mark liquidates that trade, and the next sale opens another.
    const tradesOfOrder = async (sandbox: MemorySandbox) => {
      const demo = sandbox.clientFor(defaultCredentials);
      const second = secondOf(sandbox);
      const book = valid(zGetPriceLevelsResponse, await demo('GET', '/products/1/price_levels'));
      const [bid] = book.buy_price_levels[0] ?? [];
      const price = new D(String(bid)).plus(1).toFixed();
      const resting = await place(second, {
        product_id: 1,
        price,
        quantity: '0.02',
        trading_type: 'margin',
        leverage_level: 2,
      });
      const sale = { product_id: 1, side: 'sell', price, quantity: '0.01' };
      await place(demo, sale);
      await sandbox.sequencer.run((journal) =>
        moveMarkPrice(journal, 1, new D(price).div(2), sandbox.now()),
      );
      await place(demo, sale);
      const { trade_id } = await getOrder(second, resting.id);
      const trades = valid(
        zListOrderTradesResponse,
        await second('GET', `/orders/${resting.id}/trades`),
      );
      return { trades, trade_id };
    };
    for (const sandbox of [inMemory, stored]) {
      const { trades, trade_id } = await tradesOfOrder(sandbox);
      expect(trades.map(({ status, quantity }) => ({ status, quantity }))).toEqual([
        { status: 'closed', quantity: '0.01' },
        { status: 'open', quantity: '0.01' },
      ]);
      expect(trades[1]?.id).toBe(trade_id);
    }
  });
});
