import {
  zEstimateFeeResponse,
  zGetFeeTierResponse,
  zListBalanceHistoryResponse,
  zListFeesResponse,
  zListUserFeesResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { freshProduct, place } from '../testing/trading.js';

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
    const product_id = await freshProduct(sandbox, {
      margin: true,
      takerFee: '0.0015',
      makerFee: '0.0005',
    });
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
    expect(await refused({ funding_currency: 'ETH', trading_type: 'margin' })).toMatchObject({
      errors: { funding_currency: ['not_a_currency_of_the_product'] },
    });
    expect(JSON.stringify(await refused({ leverage: 2 }))).toContain('leverage');
    expect(sandbox.sequencer.state.exchange.ordersByUser.of(user.userId)).toEqual([]);
  });
});

describe('fee reads', () => {
  it('list each product’s rates and each currency’s withdrawal fee, by the same rules', async () => {
    const product_id = await freshProduct(sandbox, { takerFee: '0.002', makerFee: '0.001' });
    const schedule = valid(zListFeesResponse, await sandbox.request('GET', '/fees'));
    expect(schedule).toContainEqual({
      fee_type: 'trade_fee',
      fee_tier: 0,
      product_id: String(product_id),
      currency: null,
      taker_fee: '0.002',
      maker_fee: '0.001',
      withdrawal_fee: null,
    });
    expect(schedule).toContainEqual(
      expect.objectContaining({ fee_type: 'withdrawal_fee', currency: 'BTC' }),
    );
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
