import {
  zEstimateFeeResponse,
  zGetFeeTierResponse,
  zListBalanceHistoryResponse,
  zListFeesResponse,
  zListOwnExecutionsResponse,
  zListUserFeesResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoFees } from '../demo-market.js';
import { D } from '../state/records.js';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { balances, freshProduct, getOrder, place } from '../testing/trading.js';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const estimate = async (call: Client, body: Record<string, unknown>) =>
  valid(zEstimateFeeResponse, await call('POST', '/fees/estimate', { body })).fee_options.default;

/** The trade_fee entry the caller's newest fill was charged, as `{ amount, currency }`. */
async function newestFee(call: Client) {
  const [entry] = valid(
    zListBalanceHistoryResponse,
    await call('GET', '/balance_history?source_action=trade_fee&limit=10'),
  );
  return { amount: String(entry?.amount).replace(/^-/, ''), currency: entry?.currency };
}

describe('fee estimates', () => {
  it('are what the fill then charges, taker and maker, spot and margin, every digit', async () => {
    const product_id = await freshProduct(sandbox, { margin: true, ...demoFees });
    const [maker, taker] = [sandbox.addUser(), sandbox.addUser()];
    const fill = { product_id, price: '1425', quantity: '1.00000015' };
    const margin = { trading_type: 'margin', leverage_level: 2 };
    // Each pair rests one order, then takes it: the maker's estimate is asked before it rests,
    // the taker's once there is something to take. An estimate takes no leverage.
    const pairs = [
      [{ side: 'sell', order_type: 'limit_post_only' }, {}, { side: 'buy', order_type: 'limit' }],
      [
        { side: 'buy', order_type: 'limit_post_only', trading_type: 'margin' },
        margin,
        { side: 'sell', order_type: 'market' },
      ],
    ];
    for (const [resting, placing, taking] of pairs) {
      const made = await estimate(maker.call, { ...fill, ...resting });
      await place(maker.call, { ...fill, ...resting, ...placing });
      const taken = await estimate(taker.call, { ...fill, ...taking });
      await place(taker.call, { ...fill, ...taking });
      expect(made).toEqual([{ fee_type: 'trade_fee', ...(await newestFee(maker.call)) }]);
      expect(taken).toEqual([{ fee_type: 'trade_fee', ...(await newestFee(taker.call)) }]);
    }
    expect(await newestFee(taker.call)).toEqual({ amount: '2.137500320625', currency: 'JPY' });
    // A margin order funded in the base currency is charged on the quantity, in it.
    expect(
      await estimate(taker.call, {
        ...fill,
        side: 'sell',
        trading_type: 'margin',
        funding_currency: 'BTC',
      }),
    ).toEqual([{ fee_type: 'trade_fee', amount: '0.000500000075', currency: 'BTC' }]);
  });

  it('refuse what no order could be, naming the field, and place nothing', async () => {
    const user = sandbox.addUser();
    const body = { product_id: 1, side: 'buy', quantity: '0.01', price: '9500000' };
    const refused = async (fields: Record<string, unknown>) => {
      const answer = await user.call('POST', '/fees/estimate', { body: { ...body, ...fields } });
      expect(answer.status).toBe(422);
      return answer.body;
    };
    expect(await refused({ product_id: 999999 })).toEqual({
      errors: { product_id: ['not_found'] },
    });
    expect(await refused({ quantity: '0' })).toMatchObject({
      errors: { quantity: ['must_be_positive'] },
    });
    // As placing it would be: under BTC's smallest order, finer than its step, off the tick.
    expect(await refused({ quantity: '0.00001' })).toEqual({
      errors: { quantity: ['less_than_order_size'] },
    });
    expect(await refused({ quantity: '0.000000000000000000000000000001' })).toEqual({
      errors: { quantity: ['less_than_order_size'] },
    });
    expect(await refused({ quantity: '0.010000001' })).toEqual({
      errors: { quantity: ['not_a_multiple_of_the_quantity_step'] },
    });
    expect(await refused({ price: '9500000.001' })).toEqual({
      errors: { price: ['not_a_multiple_of_the_tick_size'] },
    });
    expect(await refused({ funding_currency: 'ETH', trading_type: 'margin' })).toMatchObject({
      errors: { funding_currency: ['not_a_currency_of_the_product'] },
    });
    expect(JSON.stringify(await refused({ leverage: 2 }))).toContain('leverage');
    expect(sandbox.sequencer.state.exchange.ordersByUser.of(user.userId)).toEqual([]);
  });
});

/**
 * What `call`'s trade_fee entries against the fills of order `id` (of product `productId`) sum to: the fee each fill
 * charged the order, its owner's entry against it (the first of two where the owner is both
 * sides, a fill charging its taker first).
 */
async function chargedTo(call: Client, productId: number, id: number) {
  const fills = valid(
    zListOwnExecutionsResponse,
    await call('GET', `/executions/me?product_id=${productId}&with_details=1&limit=1000`),
  ).models.filter((fill) => String(fill.order_id) === String(id));
  const entries = valid(
    zListBalanceHistoryResponse,
    await call('GET', '/balance_history?source_action=trade_fee&limit=1000'),
  ).toReversed();
  let sum = new D(0);
  for (const fill of fills) {
    const own = entries.filter((entry) => String(entry.source_object_id) === String(fill.id));
    const entry = own.length === 2 && fill.taker_side !== fill.my_side ? own[1] : own[0];
    sum = sum.minus(String(entry?.amount));
  }
  return { sum: sum.toFixed(), fills: fills.length };
}

describe('order_fee', () => {
  it('is what the order’s fills charged it, taker and maker, spot and margin', async () => {
    const product_id = await freshProduct(sandbox, { margin: true, ...demoFees });
    const [maker, taker] = [sandbox.addUser(), sandbox.addUser()];
    const at = { product_id, price: '1425' };
    // A sell that two buys take in turn, a spot one and a margin one, and a margin sell that
    // a spot buy takes whole: fees in the quote currency on spot, in the funding on margin.
    const resting = await place(maker.call, { ...at, side: 'sell', quantity: '1.00000015' });
    const spotBuy = await place(taker.call, { ...at, side: 'buy', quantity: '0.4' });
    const marginBuy = await place(taker.call, {
      ...at,
      side: 'buy',
      quantity: '0.60000015',
      trading_type: 'margin',
      leverage_level: 2,
    });
    const marginSell = await place(maker.call, {
      ...at,
      side: 'sell',
      quantity: '0.3',
      trading_type: 'margin',
      leverage_level: 2,
    });
    const spotTaker = await place(taker.call, { ...at, side: 'buy', quantity: '0.3' });
    const expected = [
      [maker, resting, '0.712500106875', 2],
      [taker, spotBuy, '0.855', 1],
      [taker, marginBuy, '1.282500320625', 1],
      [maker, marginSell, '0.21375', 1],
      [taker, spotTaker, '0.64125', 1],
    ] as const;
    for (const [user, order, fee, fills] of expected) {
      const shown = (await getOrder(user.call, order.id)).order_fee;
      expect(shown, `order ${order.id}`).toBe(fee);
      expect(await chargedTo(user.call, product_id, Number(order.id))).toEqual({ sum: fee, fills });
    }
  });

  it('is charged whole on a fill that opens a trade, or the order is refused', async () => {
    const product_id = await freshProduct(sandbox, { margin: true, ...demoFees });
    const parking = await freshProduct(sandbox);
    const bidder = sandbox.addUser();
    const bid = await place(bidder.call, { product_id, price: '1000', quantity: '1' });
    // A margin sell at 500 holds 250 and its fee at the limit; the bid it takes sells at
    // 1000, which holds 500 and charges 1.5. With 501 free the margin fits and the fee not.
    const trader = sandbox.addUser();
    const parked = await place(trader.call, {
      product_id: parking,
      price: '1000000',
      quantity: '99.999499',
    });
    const sell = {
      order_type: 'limit',
      product_id,
      side: 'sell',
      price: '500',
      quantity: '1',
      trading_type: 'margin',
      leverage_level: 2,
    };
    const before = await balances(trader.call, 'JPY');
    const refused = await trader.call('POST', '/orders', { body: sell });
    expect(refused).toMatchObject({
      status: 422,
      body: { errors: { user: ['not_enough_free_balance'] } },
    });
    expect(await balances(trader.call, 'JPY')).toEqual(before);
    expect((await getOrder(bidder.call, bid.id)).status).toBe('live');
    // Half a yen more free covers the fee: the fill charges it whole, at the price it sold at.
    await trader.call('PUT', `/orders/${parked.id}/cancel`);
    await place(trader.call, { product_id: parking, price: '1000000', quantity: '99.9994985' });
    const sold = await place(trader.call, sell);
    expect(sold.status).toBe('filled');
    expect((await getOrder(trader.call, sold.id)).order_fee).toBe('1.5');
    expect(await chargedTo(trader.call, product_id, Number(sold.id))).toEqual({
      sum: '1.5',
      fills: 1,
    });
  });

  it('counts only its own side where one user is both sides of a fill', async () => {
    const product_id = await freshProduct(sandbox, { takerFee: '0.002', makerFee: '0.001' });
    const user = sandbox.addUser();
    const sell = await place(user.call, { product_id, side: 'sell', price: '100', quantity: '2' });
    const buy = await place(user.call, { product_id, side: 'buy', price: '100', quantity: '2' });
    // The buy took 200 JPY's worth (0.2%); the sell made 200 JPY (0.1%): both in JPY.
    expect((await getOrder(user.call, buy.id)).order_fee).toBe('0.4');
    expect((await getOrder(user.call, sell.id)).order_fee).toBe('0.2');
    expect(await chargedTo(user.call, product_id, Number(sell.id))).toEqual({
      sum: '0.2',
      fills: 1,
    });
    expect(await chargedTo(user.call, product_id, Number(buy.id))).toEqual({
      sum: '0.4',
      fills: 1,
    });
  });
});

describe('fee reads', () => {
  it('list each product’s rates and each currency’s withdrawal fee, by the same rules', async () => {
    await freshProduct(sandbox, {
      base: 'XRP',
      quote: 'BTC',
      tick: '0.00000001',
      takerFee: '0.002',
      makerFee: '0.001',
    });
    const schedule = valid(zListFeesResponse, await sandbox.request('GET', '/fees'));
    const pair = { product_type: 'CurrencyPair', trading_type: null, currency_pair_code: 'XRPBTC' };
    const rules = schedule.filter((rule) => rule.conditions.currency_pair_code === 'XRPBTC');
    expect(rules.map(({ id: _, ...rule }) => rule)).toEqual([
      {
        fee_type: 'trade_fee',
        conditions: { ...pair, fee_tier: 0, maker_taker: 'taker' },
        charge_type: 'rate',
        charge_value: '0.002',
        charge_base_currency: null,
      },
      {
        fee_type: 'trade_fee',
        conditions: { ...pair, fee_tier: 0, maker_taker: 'maker' },
        charge_type: 'rate',
        charge_value: '0.001',
        charge_base_currency: null,
      },
    ]);
    expect(schedule).toContainEqual(
      expect.objectContaining({
        fee_type: 'withdrawal_fee',
        charge_type: 'fixed',
        charge_value: '0.0005',
        charge_base_currency: 'BTC',
      }),
    );
    // One id a rule.
    expect(new Set(schedule.map((rule) => rule.id)).size).toBe(schedule.length);
    const user = sandbox.addUser();
    const own = valid(zListUserFeesResponse, await user.call('GET', '/user/fees'));
    expect(own).toEqual(schedule);
    const withdrawals = valid(
      zListUserFeesResponse,
      await user.call('GET', '/user/fees?fee_type=withdrawal_fee'),
    );
    expect(withdrawals.length).toBeGreaterThan(0);
    expect(withdrawals).toEqual(schedule.filter((rule) => rule.fee_type === 'withdrawal_fee'));
    const bad = await user.call('GET', '/user/fees?fee_type=funding');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('fee_type');
  });

  it('show the caller’s tier and the volume of its last 30 days of fills', async () => {
    const product_id = await freshProduct(sandbox);
    const [buyer, seller] = [sandbox.addUser(), sandbox.addUser()];
    const empty = valid(zGetFeeTierResponse, await buyer.call('GET', '/user/fee_tier'));
    expect(empty).toMatchObject({ fee_tier: 0, in_currency: 'JPY', currency_pair_volume: '0' });
    const days = (Date.parse(empty.to_time) - Date.parse(empty.from_time)) / 86_400_000;
    expect(days).toBe(30);
    await place(seller.call, { product_id, side: 'sell', price: '1425', quantity: '0.5' });
    await place(buyer.call, { product_id, price: '1425', quantity: '0.5' });
    const tier = valid(zGetFeeTierResponse, await buyer.call('GET', '/user/fee_tier'));
    expect(tier).toMatchObject({ currency_pair_volume: '712.5', perpetual_volume: '0' });
  });
});
