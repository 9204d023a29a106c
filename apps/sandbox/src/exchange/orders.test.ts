import { operationTable } from '@exchange-kit/contract/exchange';
import {
  zCancelAllOrdersResponse,
  zCancelOrderByClientIdResponse,
  zCancelOrderResponse,
  zCreateOrderResponse,
  zEditOrderByClientIdResponse,
  zEditOrderResponse,
  zGetOrderByClientIdResponse,
  zGetOrderResponse,
  zGetPriceLevelsResponse,
  zListExecutionsResponse,
  zListOrdersResponse,
  zListOwnExecutionsResponse,
  zUpdateOrderTpslByClientIdResponse,
  zUpdateOrderTpslResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, type RequestOptions, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import * as trading from '../testing/trading.js';
import { balances, getOrder, type Order } from '../testing/trading.js';
import { orderHandlers } from './orders.js';

let sandbox: MemorySandbox;
// Products of these tests alone, with empty books, so every fill is one a test set up.
let quiet: number;
let quietEth: number;

beforeAll(async () => {
  sandbox = await memorySandbox();
  quiet = sandbox.addProduct({ base: 'BTC', quote: 'JPY', margin: true });
  quietEth = sandbox.addProduct({ base: 'ETH', quote: 'JPY' });
});

const path = (key: { id: number | string } | { clientOrderId: string }, suffix = '') =>
  'id' in key
    ? `/orders/${key.id}${suffix}`
    : `/orders/client:${encodeURIComponent(key.clientOrderId)}${suffix}`;

/** An order on the quiet BTC/JPY product unless `body` names another. */
const place = (call: Client, body: Record<string, unknown>) =>
  trading.place(call, { product_id: quiet, ...body });

const freshProduct = () => trading.freshProduct(sandbox);

/** A live order, a cancelled one and a filled one of a fresh user, at prices of their own. */
async function ordersInEveryState(price: string) {
  const user = sandbox.addUser();
  const seller = sandbox.addUser();
  const live = await place(user.call, { price: '9000000', client_order_id: `live-${price}` });
  const cancelled = await place(user.call, { price: '9000000', client_order_id: `gone-${price}` });
  valid(zCancelOrderResponse, await user.call('PUT', `/orders/${cancelled.id}/cancel`));
  await place(seller.call, { side: 'sell', price, quantity: '0.02' });
  const filled = await place(user.call, {
    price,
    quantity: '0.02',
    client_order_id: `done-${price}`,
  });
  expect(filled.status).toBe('filled');
  return { user, live, cancelled, filled };
}

describe('placing, listing and reading orders', () => {
  it('places a flat and a wrapped order, both live', async () => {
    const { call } = sandbox.addUser();
    const flat = await place(call, { price: '9100000', client_order_id: 'flat-1' });
    expect(flat).toMatchObject({ status: 'live', client_order_id: 'flat-1', trading_type: 'spot' });
    const wrapped = valid(
      zCreateOrderResponse,
      await call('POST', '/orders', {
        body: {
          order: {
            order_type: 'limit',
            product_id: String(quiet),
            side: 'sell',
            quantity: '0.02',
            price: '9900000',
            trading_type: 'margin',
            leverage_level: 2,
            funding_currency: 'JPY',
          },
        },
      }),
    );
    expect(wrapped).toMatchObject({ status: 'live', trading_type: 'margin', margin_type: 'cross' });
    expect(wrapped.leverage_level).toBe(2);
  });

  /** A resting buy on the quiet product, sent as a caller writes it, to place with a leverage. */
  const restingBuy = () => ({
    order_type: 'limit',
    product_id: String(quiet),
    side: 'buy',
    quantity: '0.02',
    price: '9000000',
  });

  it('refuses a leverage above the maximum the spec gives, naming the field', async () => {
    const { call } = sandbox.addUser();
    const order = { ...restingBuy(), trading_type: 'margin', funding_currency: 'JPY' };
    const refused = await call('POST', '/orders', { body: { ...order, leverage_level: 101 } });
    expect(refused).toMatchObject({
      status: 422,
      body: { errors: { leverage_level: ['must_be_at_most_100'] } },
    });
    expect(
      (await call('POST', '/orders', { body: { ...order, leverage_level: 100 } })).status,
    ).toBe(200);
  });

  it('refuses a leverage on a spot order, which would trade on spot what was meant on margin', async () => {
    const { call } = sandbox.addUser();
    const order = restingBuy();
    for (const spot of [{}, { trading_type: 'spot' }]) {
      expect(
        await call('POST', '/orders', { body: { ...order, ...spot, leverage_level: 2 } }),
      ).toMatchObject({
        status: 422,
        body: { errors: { leverage_level: ['only_with_margin_trading'] } },
      });
    }
    const spotLeverage = await call('POST', '/orders', { body: { ...order, leverage_level: 1 } });
    expect(spotLeverage.body).toMatchObject({ trading_type: 'spot', leverage_level: 1 });
  });

  it('reads an order by system id and by a client id that needs percent-encoding', async () => {
    const { call } = sandbox.addUser();
    const clientOrderId = 'a/b?c#d%e f:é';
    const order = await place(call, { price: '9100000', client_order_id: clientOrderId });
    expect(valid(zGetOrderResponse, await call('GET', path({ id: order.id }))).id).toBe(order.id);
    const byClient = valid(zGetOrderByClientIdResponse, await call('GET', path({ clientOrderId })));
    expect(byClient).toMatchObject({ id: order.id, client_order_id: clientOrderId });
  });

  it("does not show another user's order", async () => {
    const owner = sandbox.addUser();
    const other = sandbox.addUser();
    const order = await place(owner.call, { price: '9100000' });
    expect((await other.call('GET', `/orders/${order.id}`)).status).toBe(404);
    expect((await other.call('PUT', `/orders/${order.id}/cancel`)).status).toBe(404);
    expect((await getOrder(owner.call, order.id)).status).toBe('live');
  });

  it('lists newest first, paginated, with filters', async () => {
    const { call } = sandbox.addUser();
    const ids: (number | string)[] = [];
    for (let index = 0; index < 5; index++) ids.push((await place(call, { price: '9100000' })).id);
    await place(call, { product_id: quietEth, price: '400000', quantity: '0.1' });
    const page = valid(
      zListOrdersResponse,
      await call('GET', `/orders?product_id=${quiet}&limit=2&page=2`),
    );
    expect(page).toMatchObject({ current_page: 2, total_pages: 3 });
    expect(page.models.map((order) => order.id)).toEqual([ids[2], ids[1]]);
    const eth = valid(zListOrdersResponse, await call('GET', `/orders?product_id=${quietEth}`));
    expect(eth.models).toHaveLength(1);
    const all = valid(
      zListOrdersResponse,
      await call('GET', '/orders?status=live&funding_currency=JPY'),
    );
    expect(all.models).toHaveLength(6);
    const none = valid(zListOrdersResponse, await call('GET', '/orders?trading_type=margin'));
    expect(none).toMatchObject({ models: [], total_pages: 0 });
  });

  it('lists a partly filled resting order among the live ones, as clients ask for open orders', async () => {
    const product_id = await trading.freshProduct(sandbox);
    const maker = sandbox.addUser();
    const offer = await place(maker.call, {
      product_id,
      side: 'sell',
      price: '100',
      quantity: '1',
    });
    await place(sandbox.addUser().call, { product_id, price: '100', quantity: '0.5' });
    const listed = async (status: string) =>
      valid(zListOrdersResponse, await maker.call('GET', `/orders?status=${status}`)).models.map(
        (order) => [order.id, order.status],
      );
    expect(await listed('live')).toEqual([[offer.id, 'partially_filled']]);
    expect(await listed('partially_filled')).toEqual([[offer.id, 'partially_filled']]);
    expect(await listed('filled')).toEqual([]);
  });
});

describe('matching and balances', () => {
  it('fills crossing limit orders by price-time priority at the resting price', async () => {
    const first = sandbox.addUser();
    const second = sandbox.addUser();
    const buyer = sandbox.addUser();
    const early = await place(first.call, { side: 'sell', price: '9200000', quantity: '0.03' });
    const late = await place(second.call, { side: 'sell', price: '9200000', quantity: '0.03' });
    const jpyBefore = await balances(buyer.call, 'JPY');
    const buy = await place(buyer.call, { price: '9200500', quantity: '0.04' });
    expect(buy).toMatchObject({
      status: 'filled',
      filled_quantity: '0.04',
      average_price: '9200000',
    });
    expect((await getOrder(first.call, early.id)).status).toBe('filled');
    const partial = await getOrder(second.call, late.id);
    expect(partial).toMatchObject({ status: 'partially_filled', filled_quantity: '0.01' });
    const jpyAfter = await balances(buyer.call, 'JPY');
    expect(Number(jpyBefore.balance) - Number(jpyAfter.balance)).toBe(0.04 * 9200000);
    expect(jpyAfter.reserved).toBe('0');
    expect((await balances(buyer.call, 'BTC')).balance).toBe('10.04');
    expect((await balances(first.call, 'BTC')).balance).toBe('9.97');
    // The rest of the partially filled order still holds its BTC.
    expect((await balances(second.call, 'BTC')).reserved).toBe('0.02');
  });

  it('fills a market order from the book and refuses one the book cannot fill', async () => {
    const product_id = await freshProduct();
    const seller = sandbox.addUser();
    const buyer = sandbox.addUser();
    const market = { product_id, order_type: 'market', price: undefined };
    const empty = await buyer.call('POST', '/orders', {
      body: { order_type: 'market', product_id, side: 'buy', quantity: '0.01' },
    });
    expect(empty).toMatchObject({ status: 422, body: { errors: { quantity: ['no_liquidity'] } } });
    await place(seller.call, { product_id, side: 'sell', price: '9300000', quantity: '0.01' });
    await place(seller.call, { product_id, side: 'sell', price: '9400000', quantity: '0.01' });
    const filled = await place(buyer.call, { ...market, quantity: '0.02' });
    expect(filled).toMatchObject({ status: 'filled', average_price: '9350000' });
    expect((await balances(buyer.call, 'JPY')).reserved).toBe('0');
  });

  it('lists with an order’s details the fills its filled_quantity counts, and no later one', async () => {
    const product_id = await freshProduct();
    const [buyer, seller] = [sandbox.addUser(), sandbox.addUser()];
    const bid = await place(buyer.call, { product_id, price: '100', quantity: '2' });
    await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '0.5' });
    // The read is decided first, the sale after it, and both are stored together before the
    // read's fills are: the sale's fill is not the read's to list.
    const sell = { product_id, order_type: 'limit', side: 'sell', price: '100', quantity: '0.5' };
    const [read] = await Promise.all([
      buyer.call('GET', `/orders/${bid.id}?with_details=1`),
      seller.call('POST', '/orders', { body: sell }),
    ]);
    const body = read.body as Order & { executions: { quantity: string }[] };
    expect(body.filled_quantity).toBe('0.5');
    expect(body.executions.map((fill) => fill.quantity)).toEqual(['0.5']);
    const after = (await buyer.call('GET', `/orders/${bid.id}?with_details=1`)).body as typeof body;
    expect(after.executions.map((fill) => fill.quantity)).toEqual(['0.5', '0.5']);
  });

  it('cancels what the book cannot fill of a market order, keeping the quantity asked', async () => {
    const product_id = await freshProduct();
    const seller = sandbox.addUser();
    const buyer = sandbox.addUser();
    await place(seller.call, { product_id, side: 'sell', price: '9300000', quantity: '0.01' });
    const taken = await place(buyer.call, {
      product_id,
      order_type: 'market',
      price: undefined,
      quantity: '0.03',
    });
    // A bot compares filled_quantity with quantity to see the shortfall.
    expect(taken).toMatchObject({ status: 'cancelled', quantity: '0.03', filled_quantity: '0.01' });
    const read = await getOrder(buyer.call, taken.id);
    expect(read).toMatchObject({ status: 'cancelled', quantity: '0.03', filled_quantity: '0.01' });
    expect((await balances(buyer.call, 'BTC')).balance).toBe('10.01');
    expect((await balances(buyer.call, 'JPY')).reserved).toBe('0');
  });

  it('fills a market_with_range order only within its range of the best price', async () => {
    const product_id = await freshProduct();
    const seller = sandbox.addUser();
    const buyer = sandbox.addUser();
    const ranged = { product_id, order_type: 'market_with_range', side: 'buy' };
    const empty = await buyer.call('POST', '/orders', {
      body: { ...ranged, quantity: '0.01', price_range: '100' },
    });
    expect(empty).toMatchObject({ status: 422, body: { errors: { quantity: ['no_liquidity'] } } });
    const unbounded = await buyer.call('POST', '/orders', {
      body: { ...ranged, quantity: '0.01' },
    });
    expect(unbounded).toMatchObject({
      status: 422,
      body: { errors: { price_range: ['required'] } },
    });
    for (const price of ['9300000', '9300100', '9300500']) {
      await place(seller.call, { product_id, side: 'sell', price, quantity: '0.01' });
    }
    const filled = await place(buyer.call, {
      ...ranged,
      price: undefined,
      quantity: '0.03',
      price_range: '100',
    });
    // The third ask lies beyond 9300000 + 100: the order takes two and the rest is cancelled,
    // its quantity still the one asked, so the shortfall shows.
    expect(filled).toMatchObject({
      status: 'cancelled',
      quantity: '0.03',
      filled_quantity: '0.02',
      price: '9300100',
      average_price: '9300050',
    });
    const book = valid(
      zGetPriceLevelsResponse,
      await buyer.call('GET', `/products/${product_id}/price_levels`),
    );
    expect(book.sell_price_levels).toEqual([['9300500', '0.01']]);
    expect((await balances(buyer.call, 'JPY')).reserved).toBe('0');
  });

  it('shows the best 20 levels of each side, or every level with full=1', async () => {
    const product_id = await freshProduct();
    const buyer = sandbox.addUser();
    // 25 levels, the best two holding two orders each, placed worst first.
    const prices = Array.from({ length: 25 }, (_, n) => String(1000 + n));
    for (const price of prices) await place(buyer.call, { product_id, price });
    for (const price of prices.slice(-2)) await place(buyer.call, { product_id, price });
    const book = async (query: string) =>
      valid(
        zGetPriceLevelsResponse,
        await buyer.call('GET', `/products/${product_id}/price_levels${query}`),
      ).buy_price_levels;
    const best = [...prices].reverse();
    const levels = best.map((price, n) => [price, n < 2 ? '0.02' : '0.01']);
    expect(await book('')).toEqual(levels.slice(0, 20));
    expect(await book('?full=0')).toEqual(levels.slice(0, 20));
    expect(await book('?full=1')).toEqual(levels);
    const refused = await buyer.call('GET', `/products/${product_id}/price_levels?full=2`);
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('full');
  });

  it('refuses a post-only order that would take liquidity', async () => {
    const product_id = await freshProduct();
    const seller = sandbox.addUser();
    const buyer = sandbox.addUser();
    await place(seller.call, { product_id, side: 'sell', price: '9300000' });
    const answer = await buyer.call('POST', '/orders', {
      body: {
        order_type: 'limit_post_only',
        product_id,
        side: 'buy',
        quantity: '0.01',
        price: '9300000',
      },
    });
    expect(answer).toMatchObject({
      status: 422,
      body: { errors: { price: ['would_take_liquidity'] } },
    });
    const resting = await place(buyer.call, {
      product_id,
      order_type: 'limit_post_only',
      price: '9200000',
    });
    expect(resting.status).toBe('live');
  });

  it('holds the funds of resting orders and gives them back on cancel', async () => {
    const { call } = sandbox.addUser();
    const order = await place(call, { price: '9000000', quantity: '0.5' });
    expect((await balances(call, 'JPY')).reserved).toBe('4500000');
    valid(zCancelOrderResponse, await call('PUT', `/orders/${order.id}/cancel`));
    expect((await balances(call, 'JPY')).reserved).toBe('0');
  });

  it('refuses an order the free balance does not cover, and changes nothing', async () => {
    const { call } = sandbox.addUser();
    const before = await balances(call, 'JPY');
    const answer = await call('POST', '/orders', {
      body: {
        order_type: 'limit',
        product_id: quiet,
        side: 'buy',
        quantity: '100',
        price: '9000000',
      },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: { user: ['not_enough_free_balance'] } });
    expect(await balances(call, 'JPY')).toEqual(before);
    expect(valid(zListOrdersResponse, await call('GET', '/orders')).models).toEqual([]);
  });
});

describe('order state table', () => {
  for (const form of ['id', 'client'] as const) {
    const keyOf = (order: Order) =>
      form === 'id' ? { id: order.id } : { clientOrderId: String(order.client_order_id) };

    it(`ORDER-CANCEL-LIVE (${form}): a live order is cancelled and returned cancelled`, async () => {
      const { call } = sandbox.addUser();
      const order = await place(call, { price: '9000000', client_order_id: `cancel ${form}/1` });
      const schema = form === 'id' ? zCancelOrderResponse : zCancelOrderByClientIdResponse;
      const cancelled = valid(schema, await call('PUT', path(keyOf(order), '/cancel')));
      expect(cancelled).toMatchObject({ id: order.id, status: 'cancelled' });
      expect(cancelled).toHaveProperty('margin_used');
      expect(cancelled).toHaveProperty('margin_interest');
      expect(cancelled).toHaveProperty('unwound_trade_leverage_level');
      expect((await getOrder(call, order.id)).status).toBe('cancelled');
    });

    it(`ORDER-EDIT-LIVE (${form}): price and quantity change, the order stays live`, async () => {
      const { call } = sandbox.addUser();
      const order = await place(call, { price: '9000000', client_order_id: `edit ${form}/1` });
      const schema = form === 'id' ? zEditOrderResponse : zEditOrderByClientIdResponse;
      const edited = valid(
        schema,
        await call('PUT', path(keyOf(order)), { body: { price: '9100000', quantity: '0.02' } }),
      );
      expect(edited).toMatchObject({ status: 'live', price: '9100000', quantity: '0.02' });
      expect((await balances(call, 'JPY')).reserved).toBe('182000');
      const wrapped = valid(
        schema,
        await call('PUT', path(keyOf(order)), { body: { order: { quantity: '0.03' } } }),
      );
      expect(wrapped).toMatchObject({ status: 'live', price: '9100000', quantity: '0.03' });
    });

    it(`refuses a bad wrapped edit (${form}) with 422 naming the field, as it does a flat one`, async () => {
      const { call } = sandbox.addUser();
      const order = await place(call, { price: '9000000', client_order_id: `bad edit ${form}` });
      const refusals: [unknown, Record<string, string[]>][] = [
        [{ price: '1e5' }, { price: ['must_be_decimal'] }],
        [{ order: { price: '1e5' } }, { 'order.price': ['must_be_decimal'] }],
        [{ order: { quantity: 7 } }, { 'order.quantity': ['must_be_string'] }],
        [{ order: 'x' }, { order: ['must_be_object'] }],
        [{ order: null }, { order: ['must_be_object'] }],
      ];
      for (const [body, errors] of refusals) {
        const answer = await call('PUT', path(keyOf(order)), { body });
        expect([answer.status, answer.body], JSON.stringify(body)).toEqual([422, { errors }]);
      }
      expect(await getOrder(call, order.id)).toMatchObject({ price: '9000000', quantity: '0.01' });
    });

    it(`ORDER-UPDATE-TPSL-LIVE (${form}): take profit and stop loss are set`, async () => {
      const { call } = sandbox.addUser();
      const order = await place(call, { price: '9000000', client_order_id: `tpsl ${form}/1` });
      const schema = form === 'id' ? zUpdateOrderTpslResponse : zUpdateOrderTpslByClientIdResponse;
      const updated = valid(
        schema,
        await call('PUT', path(keyOf(order), '/update_tpsl'), {
          body: { take_profit: '10000000', stop_loss: '8000000' },
        }),
      );
      expect(updated).toMatchObject({
        status: 'live',
        take_profit: '10000000',
        stop_loss: '8000000',
      });
      expect(updated).toHaveProperty('margin_used');
      expect(updated).toHaveProperty('unwound_trade_leverage_level');
    });

    it(`ORDER-CANCEL-NOT-LIVE, ORDER-EDIT-NOT-LIVE, ORDER-UPDATE-TPSL-NOT-LIVE (${form}): 404, unchanged`, async () => {
      const { user, cancelled, filled } = await ordersInEveryState(
        form === 'id' ? '9300000' : '9300100',
      );
      for (const order of [cancelled, filled]) {
        const before = await getOrder(user.call, order.id);
        const attempts = [
          await user.call('PUT', path(keyOf(order), '/cancel')),
          await user.call('PUT', path(keyOf(order)), { body: { price: '9000001' } }),
          await user.call('PUT', path(keyOf(order), '/update_tpsl'), {
            body: { take_profit: '1' },
          }),
        ];
        for (const answer of attempts) {
          expect(answer.status).toBe(404);
          expect(answer.body).toEqual({ message: 'Order not found' });
        }
        expect(await getOrder(user.call, order.id)).toEqual(before);
      }
    });
  }

  it('ORDER-CANCEL-ALL-MATCHING: only orders matching every filter are cancelled and listed', async () => {
    const { call } = sandbox.addUser();
    const spotBuy = await place(call, { price: '9000000', client_order_id: 'match-me' });
    const spotSell = await place(call, { side: 'sell', price: '9990000' });
    const marginBuy = await place(call, {
      price: '9000000',
      trading_type: 'margin',
      leverage_level: 2,
    });
    const otherProduct = await place(call, {
      product_id: quietEth,
      price: '400000',
      quantity: '0.1',
    });
    const result = valid(
      zCancelAllOrdersResponse,
      await call('PUT', '/orders/cancel_all', {
        body: { product_id: String(quiet), trading_type: 'spot', side: 'buy' },
      }),
    );
    expect(result.models).toEqual([{ id: spotBuy.id, client_order_id: 'match-me' }]);
    for (const order of [spotSell, marginBuy, otherProduct]) {
      expect((await getOrder(call, order.id)).status).toBe('live');
    }
    const margin = valid(
      zCancelAllOrdersResponse,
      await call('PUT', '/orders/cancel_all', { body: { trading_type: 'margin' } }),
    );
    expect(margin.models).toEqual([{ id: marginBuy.id, client_order_id: null }]);
  });

  it('puts back in the book every order a refused cancel_all took out of it', async () => {
    const { call, userId } = sandbox.addUser();
    const product_id = await freshProduct();
    for (const price of ['9000000', '9100000', '9050000']) await place(call, { product_id, price });
    const other = sandbox.addUser();
    await place(other.call, { product_id, price: '9060000' });
    const levels = async () => {
      const book = await call('GET', `/products/${product_id}/price_levels`);
      const { buy_price_levels, sell_price_levels } = valid(zGetPriceLevelsResponse, book);
      return { buy_price_levels, sell_price_levels };
    };
    const before = await levels();
    const cancelAll = orderHandlers.cancelAllOrders;
    const caller = { kind: 'token' as const, tokenId: 'refused', userId };
    const refused = sandbox.sequencer.run((journal) => {
      cancelAll?.({
        operationId: 'cancelAllOrders',
        path: {},
        query: {},
        body: {},
        caller,
        journal,
        now: sandbox.now(),
      });
      throw new Error('refused after the cancels');
    });
    await expect(refused).rejects.toThrow('refused after the cancels');
    expect(await levels()).toEqual(before);
    await call('PUT', '/orders/cancel_all');
    expect((await levels()).buy_price_levels.map(([price]) => Number(price))).toEqual([9060000]);
  });

  it('ORDER-CANCEL-ALL-NO-FILTER: with no body or an empty one every open order is cancelled', async () => {
    const { call } = sandbox.addUser();
    const first = await place(call, { price: '9000000' });
    const second = await place(call, {
      product_id: quietEth,
      side: 'sell',
      price: '500000',
      quantity: '0.1',
    });
    const product_id = await freshProduct();
    const partly = await place(call, {
      product_id,
      side: 'sell',
      price: '9450000',
      quantity: '0.05',
    });
    const buyer = sandbox.addUser();
    await place(buyer.call, { product_id, price: '9450000', quantity: '0.01' });
    expect((await getOrder(call, partly.id)).status).toBe('partially_filled');
    const result = valid(zCancelAllOrdersResponse, await call('PUT', '/orders/cancel_all'));
    expect(result.models.map((model) => model.id).sort()).toEqual(
      [first.id, second.id, partly.id].sort(),
    );
    const again = valid(
      zCancelAllOrdersResponse,
      await call('PUT', '/orders/cancel_all', { body: {} }),
    );
    expect(again.models).toEqual([]);
    expect((await balances(call, 'BTC')).reserved).toBe('0');
    expect((await balances(call, 'ETH')).reserved).toBe('0');
  });

  it('bounds a take profit and a stop loss as an order price is bounded, changing nothing', async () => {
    const { call } = sandbox.addUser();
    const order = await place(call, { price: '9000000' });
    const huge = `1${'0'.repeat(32)}`;
    const probes = [huge, '1e32', '0', '-1', '9000000.5', '9000000.0000001'];
    for (const value of probes) {
      const asPrice = await call('POST', '/orders', {
        body: {
          order_type: 'limit',
          product_id: quiet,
          side: 'buy',
          quantity: '0.01',
          price: value,
        },
      });
      expect(asPrice.status, value).toBe(422);
      const priceCodes = (asPrice.body as { errors: Record<string, string[]> }).errors.price;
      for (const field of ['take_profit', 'stop_loss']) {
        const answer = await call('PUT', `/orders/${order.id}/update_tpsl`, {
          body: { [field]: value },
        });
        expect([answer.status, answer.body], `${field} ${value}`).toEqual([
          422,
          { errors: { [field]: priceCodes } },
        ]);
      }
    }
    expect(await getOrder(call, order.id)).toMatchObject({ take_profit: null, stop_loss: null });
  });

  it('refuses a client_order_id no store can keep with the code the spec documents for it', async () => {
    const { call } = sandbox.addUser();
    const documented = operationTable.createOrder.errorCodes.client_order_id as readonly string[];
    for (const [clientOrderId, code] of [
      ['a\u0000b', 'must_not_contain_nul'],
      ['a\uD800b', 'must_not_contain_lone_surrogate'],
    ]) {
      const answer = await call('POST', '/orders', {
        body: {
          product_id: quiet,
          order_type: 'limit',
          side: 'buy',
          quantity: '0.01',
          price: '9000000',
          client_order_id: clientOrderId,
        },
      });
      expect([answer.status, answer.body]).toEqual([422, { errors: { client_order_id: [code] } }]);
      expect(documented).toContain(code);
    }
  });

  it('refuses a product filter naming no product, in cancel_all and the order list, cancelling nothing', async () => {
    const { call } = sandbox.addUser();
    const order = await place(call, { price: '9000000' });
    for (const product_id of ['😀', '../..', '999999999']) {
      const cancelled = await call('PUT', '/orders/cancel_all', { body: { product_id } });
      expect([cancelled.status, cancelled.body], product_id).toEqual([
        422,
        { errors: { product_id: ['not_found'] } },
      ]);
      const listed = await call('GET', `/orders?product_id=${encodeURIComponent(product_id)}`);
      expect([listed.status, listed.body], product_id).toEqual([
        422,
        { errors: { product_id: ['not_found'] } },
      ]);
    }
    expect((await getOrder(call, order.id)).status).toBe('live');
  });

  it('refuses a filter cancel_all does not know, and a key an edit does not take, changing nothing', async () => {
    const { call } = sandbox.addUser();
    const order = await place(call, { price: '9000000' });
    const misspelled = await call('PUT', '/orders/cancel_all', {
      body: { produt_id: String(quiet) },
    });
    expect([misspelled.status, misspelled.body]).toEqual([
      422,
      { errors: { produt_id: ['unknown_field'] } },
    ]);
    const edit = await call('PUT', `/orders/${order.id}`, {
      body: { price: '9000001', quantty: '5' },
    });
    expect([edit.status, edit.body]).toEqual([422, { errors: { quantty: ['unknown_field'] } }]);
    const wrapped = await call('PUT', `/orders/${order.id}`, {
      body: { order: { price: '9000001', quantty: '5' } },
    });
    expect([wrapped.status, wrapped.body]).toEqual([
      422,
      { errors: { 'order.quantty': ['unknown_field'] } },
    ]);
    // JSON makes `__proto__` a key like any other: it is named, not taken for the prototype.
    const proto = await call('PUT', `/orders/${order.id}`, {
      body: JSON.parse('{"order":{"price":"9000001"},"__proto__":0}'),
    });
    expect([proto.status, JSON.stringify(proto.body)]).toEqual([
      422,
      '{"errors":{"__proto__":["unknown_field"]}}',
    ]);
    expect(await getOrder(call, order.id)).toMatchObject({ status: 'live', price: '9000000' });
  });

  it('refuses a key update_tpsl does not take, leaving the exits as they were', async () => {
    const { call } = sandbox.addUser();
    const order = await place(call, { price: '9000000' });
    const set = await call('PUT', `/orders/${order.id}/update_tpsl`, {
      body: { take_profit: '9500000' },
    });
    expect(set.status).toBe(200);
    for (const [body, field] of [
      [{ take_proft: '9600000' }, 'take_proft'],
      [{ stop_loss: '8000000', stoploss: '8000000' }, 'stoploss'],
      [{ order: { take_profit: '9600000' } }, 'order'],
    ] as const) {
      const refused = await call('PUT', `/orders/${order.id}/update_tpsl`, { body });
      expect([refused.status, refused.body]).toEqual([
        422,
        { errors: { [field]: ['unknown_field'] } },
      ]);
    }
    expect(await getOrder(call, order.id)).toMatchObject({
      take_profit: '9500000',
      stop_loss: null,
    });
  });

  it('refuses a take profit or stop loss sent with a new order, in either form, placing nothing', async () => {
    const { call } = sandbox.addUser();
    const order = {
      order_type: 'limit',
      product_id: quiet,
      side: 'buy',
      quantity: '0.01',
      price: '9000000',
    };
    const flat = await call('POST', '/orders', {
      body: { ...order, take_profit: '9500000', client_order_id: 'tp-on-create' },
    });
    expect([flat.status, flat.body]).toEqual([422, { errors: { take_profit: ['unknown_field'] } }]);
    const wrapped = await call('POST', '/orders', {
      body: { order: { ...order, stop_loss: '8500000', client_order_id: 'sl-on-create' } },
    });
    expect([wrapped.status, wrapped.body]).toEqual([
      422,
      { errors: { 'order.stop_loss': ['unknown_field'] } },
    ]);
    const beside = await call('POST', '/orders', { body: { order, take_profit: '9500000' } });
    expect([beside.status, beside.body]).toEqual([
      422,
      { errors: { take_profit: ['unknown_field'] } },
    ]);
    for (const id of ['tp-on-create', 'sl-on-create']) {
      expect((await call('GET', `/orders/client:${id}`)).status).toBe(404);
    }
    const listed = await call('GET', '/orders');
    expect((listed.body as { models: unknown[] }).models).toEqual([]);
  });

  it('ORDER-CANCEL-ALL-SKIPS-CONDITIONAL: take profit and stop loss orders on a position stay live', async () => {
    const trader = sandbox.addUser();
    const seller = sandbox.addUser();
    const order = await place(trader.call, {
      price: '9000000',
      trading_type: 'margin',
      leverage_level: 2,
      client_order_id: 'with-tpsl',
    });
    valid(
      zUpdateOrderTpslResponse,
      await trader.call('PUT', `/orders/${order.id}/update_tpsl`, {
        body: { take_profit: '9800000', stop_loss: '8800000' },
      }),
    );
    await place(seller.call, { side: 'sell', price: '9350000', quantity: '0.01' });
    const edited = valid(
      zEditOrderResponse,
      await trader.call('PUT', `/orders/${order.id}`, { body: { price: '9350000' } }),
    );
    expect(edited.status).toBe('filled');
    const plain = await place(trader.call, { price: '9000000' });
    const conditional = valid(zListOrdersResponse, await trader.call('GET', '/orders?status=live'));
    const triggers = conditional.models.filter((model) => model.id !== plain.id);
    expect(triggers.map((model) => model.price).sort()).toEqual(['8800000', '9800000']);
    const result = valid(zCancelAllOrdersResponse, await trader.call('PUT', '/orders/cancel_all'));
    expect(result.models).toEqual([{ id: plain.id, client_order_id: null }]);
    for (const trigger of triggers) {
      expect((await getOrder(trader.call, trigger.id)).status).toBe('live');
    }
  });

  /** A filled spot buy at 100 with its take profit at 120 and stop loss at 80 waiting. */
  async function position(product_id: number) {
    const trader = sandbox.addUser();
    const seller = sandbox.addUser();
    const bought = await place(trader.call, { product_id, price: '100' });
    valid(
      zUpdateOrderTpslResponse,
      await trader.call('PUT', `/orders/${bought.id}/update_tpsl`, {
        body: { take_profit: '120', stop_loss: '80' },
      }),
    );
    await place(seller.call, { product_id, side: 'sell', price: '100' });
    const waiting = valid(zListOrdersResponse, await trader.call('GET', '/orders?status=live'));
    const byPrice = (price: string) => waiting.models.find((model) => model.price === price);
    const takeProfit = byPrice('120');
    const stopLoss = byPrice('80');
    if (!takeProfit || !stopLoss) throw new Error('no take profit and stop loss waiting');
    expect(takeProfit.source_action).toBe('netout_open');
    return { trader, takeProfit, stopLoss };
  }

  const tradeAt = (product_id: number, price: string) =>
    trading.tradeAt(sandbox, product_id, price);

  it('brings a take profit into the book once the price reaches it, and cancels its stop loss', async () => {
    const product_id = await freshProduct();
    const { trader, takeProfit, stopLoss } = await position(product_id);
    const asks = async () =>
      valid(
        zGetPriceLevelsResponse,
        await trader.call('GET', `/products/${product_id}/price_levels`),
      ).sell_price_levels;
    await tradeAt(product_id, '119');
    expect(await asks()).toEqual([]);
    await tradeAt(product_id, '120');
    expect(await getOrder(trader.call, takeProfit.id)).toMatchObject({
      status: 'live',
      source_action: 'netout_open',
    });
    expect((await getOrder(trader.call, stopLoss.id)).status).toBe('cancelled');
    expect(await asks()).toEqual([['120', '0.01']]);
    expect((await balances(trader.call, 'BTC')).reserved).toBe('0.01');
  });

  it('sells at market once the price falls to the stop loss, and cancels the take profit', async () => {
    const product_id = await freshProduct();
    const { trader, takeProfit, stopLoss } = await position(product_id);
    const bidder = sandbox.addUser();
    await place(bidder.call, { product_id, price: '70', quantity: '0.02' });
    await tradeAt(product_id, '80');
    expect(await getOrder(trader.call, stopLoss.id)).toMatchObject({
      status: 'filled',
      filled_quantity: '0.01',
      average_price: '70',
    });
    expect((await getOrder(trader.call, takeProfit.id)).status).toBe('cancelled');
  });

  it('refuses to edit a partially filled order with the conventional code', async () => {
    const { call } = sandbox.addUser();
    const buyer = sandbox.addUser();
    const product_id = await freshProduct();
    const order = await place(call, {
      product_id,
      side: 'sell',
      price: '9460000',
      quantity: '0.05',
    });
    await place(buyer.call, { product_id, price: '9460000', quantity: '0.01' });
    const answer = await call('PUT', `/orders/${order.id}`, { body: { price: '9470000' } });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: { order: ['Can not update partially filled order'] } });
  });
});

describe('concurrency', () => {
  it('concurrent cancels and cancel_all cancel every order exactly once', async () => {
    const { call, userId } = sandbox.addUser();
    const orders: Order[] = [];
    for (let index = 0; index < 10; index++) {
      orders.push(
        await place(call, { price: String(8_000_000 + index), client_order_id: `race-${index}` }),
      );
    }
    // One token per concurrent call: a token's nonces must rise, so calls racing on one
    // token would be refused for their order of arrival rather than for what they do.
    const requests: [string, string, RequestOptions?][] = [
      ...orders.flatMap((order): [string, string][] => [
        ['PUT', `/orders/${order.id}/cancel`],
        ['PUT', path({ clientOrderId: String(order.client_order_id) }, '/cancel')],
      ]),
      ['PUT', '/orders/cancel_all'],
      ['PUT', '/orders/cancel_all', { body: {} }],
    ];
    const signed = requests.map((request) => ({
      request,
      call: sandbox.clientFor(sandbox.addToken(userId)),
    }));
    const answers = await Promise.all(
      signed.map(({ request: [method, url, options], call }) => call(method, url, options)),
    );
    const single = answers.slice(0, -2);
    const models = answers
      .slice(-2)
      .flatMap((answer) => valid(zCancelAllOrdersResponse, answer).models.map((model) => model.id));
    for (const answer of single) expect([200, 404]).toContain(answer.status);
    for (const order of orders) {
      const viaSingle = single.filter(
        (answer) => answer.status === 200 && (answer.body as Order).id === order.id,
      ).length;
      const viaBulk = models.filter((id) => id === order.id).length;
      expect(viaSingle + viaBulk, `order ${order.id}`).toBe(1);
      expect((await getOrder(call, order.id)).status).toBe('cancelled');
    }
    expect((await balances(call, 'JPY')).reserved).toBe('0');
  });
});

describe('reading fills', () => {
  /** One sell that takes three resting buys of another user: three fills made in one call. */
  async function sweep() {
    const product_id = await freshProduct();
    const maker = sandbox.addUser();
    const taker = sandbox.addUser();
    const buys = [];
    for (const price of ['9000003', '9000002', '9000001']) {
      buys.push(
        await place(maker.call, {
          product_id,
          price,
          quantity: '0.001',
          client_order_id: `b${price}`,
        }),
      );
    }
    const sell = await place(taker.call, {
      product_id,
      side: 'sell',
      price: '9000001',
      quantity: '0.003',
      client_order_id: 'sweep',
    });
    expect(sell.status).toBe('filled');
    return { product_id, maker, taker, buys, sell };
  }

  it('shows each fill once to everyone, and once to each side with the order it filled', async () => {
    const { product_id, maker, taker, buys, sell } = await sweep();
    const page = valid(
      zListExecutionsResponse,
      await taker.call('GET', `/executions?product_id=${product_id}&limit=2`, { anonymous: true }),
    );
    expect(page).toMatchObject({ current_page: 1, total_pages: 2 });
    const models = 'models' in page ? page.models : [];
    expect(models.map((fill) => [fill.price, fill.taker_side])).toEqual([
      ['9000001', 'sell'],
      ['9000002', 'sell'],
    ]);
    const own = (call: Client, query = '') =>
      call('GET', `/executions/me?product_id=${product_id}${query}`);
    const makerFills = valid(zListOwnExecutionsResponse, await own(maker.call, '&with_details=1'));
    expect(makerFills.models).toEqual(
      [...buys].reverse().map((buy, at) => ({
        id: models[0] ? models[0].id - at : -1,
        quantity: '0.001',
        price: buy.price,
        taker_side: 'sell',
        created_at: expect.any(Number),
        my_side: 'buy',
        target: 'spot',
        order_id: buy.id,
        client_order_id: buy.client_order_id,
      })),
    );
    const takerFills = valid(zListOwnExecutionsResponse, await own(taker.call, '&with_details=1'));
    expect(takerFills.models.map((fill) => [fill.my_side, fill.order_id])).toEqual(
      buys.map(() => ['sell', sell.id]),
    );
    const plain = valid(zListOwnExecutionsResponse, await own(taker.call));
    expect(plain.models[0]).not.toHaveProperty('order_id');
    const stranger = sandbox.addUser();
    expect(valid(zListOwnExecutionsResponse, await own(stranger.call)).models).toEqual([]);

    const detailed = valid(
      zGetOrderResponse,
      await taker.call('GET', `/orders/${sell.id}?with_details=1`),
    );
    expect(detailed.executions?.map((fill) => [fill.id, fill.my_side, fill.price])).toEqual(
      takerFills.models.map((fill) => [fill.id, 'sell', fill.price]).reverse(),
    );
    expect(detailed.executions?.[0]?.timestamp).toMatch(/^[0-9]+\.[0-9]+$/);
    expect(await getOrder(taker.call, sell.id)).not.toHaveProperty('executions');
    const listed = valid(
      zListOrdersResponse,
      await maker.call('GET', `/orders?product_id=${product_id}&with_details=1`),
    );
    expect(listed.models.map((order) => order.executions?.map((fill) => fill.price))).toEqual(
      buys.map((buy) => [buy.price]).reverse(),
    );
  });

  it('answers from a second on with every fill of the last second, however small the limit', async () => {
    const { product_id, taker } = await sweep();
    const read = async (query: string) =>
      valid(
        zListExecutionsResponse,
        await taker.call('GET', `/executions?product_id=${product_id}${query}`, {
          anonymous: true,
        }),
      );
    const page = await read('&limit=3');
    const newest = 'models' in page ? page.models : [];
    const second = newest[0]?.created_at ?? 0;
    expect(await read(`&timestamp=${second}&limit=1`)).toEqual([...newest].reverse());
    expect(await read(`&timestamp=${second + 1}`)).toEqual([]);
  });

  it('refuses a product that does not exist, naming the field', async () => {
    const { call } = sandbox.addUser();
    for (const path of ['/executions?product_id=999999', '/executions/me?product_id=999999']) {
      const answer = await call('GET', path);
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ errors: { product_id: ['not_found'] } });
    }
  });
});
