import {
  zAdjustTradeMarginResponse,
  zCloseAllTradesResponse,
  zCloseTradeResponse,
  zListBalanceHistoryResponse,
  zListOrdersResponse,
  zListOrderTradesResponse,
  zListTradesResponse,
  zUpdateTradeResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoFees } from '../demo-market.js';
import { D } from '../state/records.js';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import {
  balances,
  closeTrade,
  freshProduct,
  getOrder,
  openPosition,
  place,
  placeMarginBuy,
  tradeAt,
} from '../testing/trading.js';
import { moveMarkPrice } from './position-exits.js';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const startingJpy = '100000000';

/** A long of 1 at 100, leverage 2 (margin 50), with a take profit at 120 and a stop loss at 80. */
const openLong = () =>
  openPosition(sandbox, { side: 'buy', leverage: 2, takeProfit: '120', stopLoss: '80' });

const trades = async (call: Client, query = '') =>
  valid(zListTradesResponse, await call('GET', `/trades${query}`)).models;

/** A resting buy of `quantity` at `price` by a new user: what a long closes against. */
const bidAt = async (product_id: number, price: string, quantity: string) =>
  place((await sandbox.addUser()).call, { product_id, price, quantity });

describe('trades', () => {
  it('a margin fill opens a trade, listed by /trades and by the order that opened it', async () => {
    const { trader, tradeId } = await openLong();
    const [trade] = await trades(trader.call);
    expect(trade).toMatchObject({
      id: tradeId,
      status: 'open',
      side: 'long',
      quantity: '1',
      open_quantity: '1',
      close_quantity: '0',
      open_price: '100',
      close_price: null,
      leverage_level: 2,
      margin_used: '50',
      take_profit: '120',
      stop_loss: '80',
      open_pnl: '0',
      maintenance_margin: '25',
      liquidation_price: '75',
      total_interest: '0',
      trading_type: 'margin',
      funding_currency: 'JPY',
    });
    const opening = (await trader.call('GET', '/orders?trading_type=margin&status=filled'))
      .body as { models: { id: number }[] };
    const byOrder = valid(
      zListOrderTradesResponse,
      await trader.call('GET', `/orders/${opening.models[0]?.id}/trades`),
    );
    expect(byOrder.map((listed) => listed.id)).toEqual([tradeId]);
    expect(await trades(trader.call, '?side=short')).toEqual([]);
    expect(await trades(trader.call, '?status=closed')).toEqual([]);
    expect(await trades((await sandbox.addUser()).call)).toEqual([]);
  });

  it('values the open part at the last traded price', async () => {
    const { product_id, trader } = await openLong();
    await tradeAt(sandbox, product_id, '110');
    const [trade] = await trades(trader.call);
    expect(trade).toMatchObject({ open_pnl: '10', pnl: '10', close_pnl: '0' });
  });

  it('a partial close at the market pays its profit and shrinks the exits to what is open', async () => {
    const { product_id, trader, tradeId, takeProfit } = await openLong();
    await bidAt(product_id, '110', '0.4');
    const closed = valid(
      zCloseTradeResponse,
      await closeTrade(trader.call, tradeId, { closed_quantity: '0.4' }),
    );
    expect(closed).toMatchObject({
      status: 'open',
      open_quantity: '0.6',
      close_quantity: '0.4',
      close_price: '110',
      close_pnl: '4',
      margin_used: '30',
    });
    expect(await balances(trader.call, 'JPY')).toEqual({ balance: '100000004', reserved: '30' });
    const [entry] = valid(
      zListBalanceHistoryResponse,
      await trader.call('GET', '/balance_history?currency=JPY&source_action=cfd_pnl'),
    );
    expect(entry).toMatchObject({ amount: '4', balance: '100000004', source_object_id: tradeId });
    expect((await getOrder(trader.call, takeProfit.id)).quantity).toBe('0.6');
  });

  it('a whole close ends the trade and cancels its take profit and stop loss', async () => {
    const { product_id, trader, tradeId, takeProfit, stopLoss } = await openLong();
    await bidAt(product_id, '90', '1');
    const closed = valid(zCloseTradeResponse, await closeTrade(trader.call, tradeId));
    expect(closed).toMatchObject({ status: 'closed', open_quantity: '0', close_pnl: '-10' });
    expect(closed.liquidation_price).toBeNull();
    expect(await balances(trader.call, 'JPY')).toEqual({ balance: '99999990', reserved: '0' });
    for (const exit of [takeProfit, stopLoss]) {
      expect((await getOrder(trader.call, exit.id)).status).toBe('cancelled');
    }
    const refused = await closeTrade(trader.call, tradeId);
    expect(refused).toMatchObject({ status: 422, body: { errors: { trade_id: ['not_open'] } } });
  });

  it('close_fee is what the fills that closed it charged, and a close at the mark charges none', async () => {
    const product_id = await freshProduct(sandbox, { margin: true, ...demoFees });
    const [trader, other] = [sandbox.addUser(), sandbox.addUser()];
    const opening = await placeMarginBuy(trader.call, product_id);
    await place(other.call, { product_id, side: 'sell', price: '100', quantity: '1' });
    const tradeId = Number((await getOrder(trader.call, opening.id)).trade_id);
    // Two closes that take bids, at the taker rate: 0.4 at 110 (0.066), 0.3 at 105 (0.04725).
    await place(other.call, { product_id, price: '110', quantity: '0.4' });
    await closeTrade(trader.call, tradeId, { closed_quantity: '0.4' });
    await place(other.call, { product_id, price: '105', quantity: '0.3' });
    const closed = valid(
      zCloseTradeResponse,
      await closeTrade(trader.call, tradeId, { closed_quantity: '0.3' }),
    );
    expect(closed.close_fee).toBe('0.11325');
    // The trader's fees are the opening order's and the closes'.
    const charged = valid(
      zListBalanceHistoryResponse,
      await trader.call('GET', '/balance_history?currency=JPY&source_action=trade_fee'),
    ).reduce((sum, entry) => sum.minus(String(entry.amount)), new D(0));
    const opened = (await getOrder(trader.call, opening.id)).order_fee;
    expect(charged.minus(String(opened)).toFixed()).toBe(closed.close_fee);
    // What is left is liquidated at a mark of 40, without a fill of the trader's.
    await tradeAt(sandbox, product_id, '40');
    const [after] = (await trades(trader.call)).filter((trade) => trade.id === tradeId);
    expect(after).toMatchObject({ status: 'closed', close_fee: '0.11325' });
  });

  it('refuses a close beyond the open quantity, into an empty book, or of another user', async () => {
    const { product_id, trader, tradeId } = await openLong();
    const tooMuch = await closeTrade(trader.call, tradeId, { closed_quantity: '1.5' });
    expect(tooMuch).toMatchObject({
      status: 422,
      body: { errors: { closed_quantity: ['more_than_the_open_quantity'] } },
    });
    const nothingToTake = await closeTrade(trader.call, tradeId);
    expect(nothingToTake).toMatchObject({
      status: 422,
      body: { errors: { closed_quantity: ['no_liquidity'] } },
    });
    // Held to what an order's quantity is: BTC's smallest order (0.0001) and its step (8 places).
    expect(await closeTrade(trader.call, tradeId, { closed_quantity: '0.00001' })).toMatchObject({
      status: 422,
      body: { errors: { closed_quantity: ['less_than_order_size'] } },
    });
    expect(
      await closeTrade(trader.call, tradeId, { closed_quantity: '0.100000001' }),
    ).toMatchObject({
      status: 422,
      body: { errors: { closed_quantity: ['not_a_multiple_of_the_quantity_step'] } },
    });
    const stranger = await sandbox.addUser();
    expect((await closeTrade(stranger.call, tradeId)).status).toBe(404);
    // An id is written without leading zeros: "0" before it names no trade.
    expect((await trader.call('PUT', `/trades/0${tradeId}/close`, {})).status).toBe(404);
    expect((await stranger.call('GET', `/orders/${tradeId}/trades`)).status).toBe(404);
    await bidAt(product_id, '100', '1');
    const [trade] = await trades(trader.call);
    expect(trade).toMatchObject({ status: 'open', open_quantity: '1', margin_used: '50' });
  });

  it('close_all closes the open trades of the side asked for', async () => {
    const { product_id, trader, tradeId } = await openLong();
    await bidAt(product_id, '100', '1');
    const shorts = valid(
      zCloseAllTradesResponse,
      await trader.call('PUT', '/trades/close_all', { body: { side: 'short' } }),
    );
    expect(shorts).toEqual([]);
    const all = valid(zCloseAllTradesResponse, await trader.call('PUT', '/trades/close_all'));
    expect(all.map(({ id, status }) => ({ id, status }))).toEqual([
      { id: tradeId, status: 'closed' },
    ]);
    expect(await balances(trader.call, 'JPY')).toEqual({ balance: startingJpy, reserved: '0' });
  });

  it('moves a take profit and places a stop loss that was not there', async () => {
    let clock = 1_716_000_000_000;
    const own = await memorySandbox({ now: () => clock });
    const { trader, tradeId, stopLoss } = await openPosition(own, {
      side: 'buy',
      leverage: 2,
      takeProfit: '120',
      stopLoss: '80',
    });
    const opened = (await trades(trader.call))[0]?.updated_at;
    clock += 5000;
    await trader.call('PUT', `/orders/${stopLoss.id}/cancel`);
    const updated = valid(
      zUpdateTradeResponse,
      await trader.call('PUT', `/trades/${tradeId}`, {
        body: { trade: { take_profit: '130', stop_loss: '70' } },
      }),
    );
    expect(updated).toMatchObject({
      take_profit: '130',
      stop_loss: '70',
      updated_at: Number(opened) + 5,
    });
    const offTick = await trader.call('PUT', `/trades/${tradeId}`, {
      body: { trade: { stop_loss: '70.5' } },
    });
    expect(offTick).toMatchObject({
      status: 422,
      body: { errors: { stop_loss: ['not_a_multiple_of_the_tick_size'] } },
    });
    const misspelled = await trader.call('PUT', `/trades/${tradeId}`, {
      body: { trade: { take_profit: '140', stoploss: '60' } },
    });
    expect([misspelled.status, misspelled.body]).toEqual([
      422,
      { errors: { 'trade.stoploss': ['unknown_field'] } },
    ]);
    expect((await trades(trader.call))[0]).toMatchObject({ take_profit: '130', stop_loss: '70' });
  });

  it('refuses a take profit or a stop loss the last traded price has reached, as a stop order', async () => {
    // A long opened at 100, the last traded price, with its exits at 120 and 80.
    const { trader, tradeId } = await openLong();
    for (const [trade, field] of [
      [{ stop_loss: '100' }, 'stop_loss'],
      [{ stop_loss: '110' }, 'stop_loss'],
      [{ take_profit: '90' }, 'take_profit'],
      [{ take_profit: '130', stop_loss: '105' }, 'stop_loss'],
    ] as const) {
      const answer = await trader.call('PUT', `/trades/${tradeId}`, { body: { trade } });
      expect([answer.status, answer.body], JSON.stringify(trade)).toEqual([
        422,
        { errors: { [field]: ['would_trigger_immediately'] } },
      ]);
    }
    expect((await trades(trader.call))[0]).toMatchObject({
      status: 'open',
      take_profit: '120',
      stop_loss: '80',
    });
    // Below the market for a long's stop, above it for its take profit: taken.
    const moved = await trader.call('PUT', `/trades/${tradeId}`, {
      body: { trade: { take_profit: '101', stop_loss: '99' } },
    });
    expect(moved.body).toMatchObject({ take_profit: '101', stop_loss: '99' });
  });

  it('refuses an exit the mark has reached, and an exit order moved where either price has', async () => {
    // A long opened at 100, the last traded price, with its exits at 120 and 80.
    const { product_id, trader, tradeId, takeProfit, stopLoss } = await openLong();
    await sandbox.sequencer.run((journal) =>
      moveMarkPrice(journal, product_id, new D('90'), sandbox.now()),
    );
    const refusal = (field: string) => ({
      status: 422,
      body: { errors: { [field]: ['would_trigger_immediately'] } },
    });
    // The mark at 90 has passed a stop at 95, though the last traded price has not.
    expect(
      await trader.call('PUT', `/trades/${tradeId}`, { body: { trade: { stop_loss: '95' } } }),
    ).toMatchObject(refusal('stop_loss'));
    const edit = (id: number | string, price: string) =>
      trader.call('PUT', `/orders/${id}`, { body: { price } });
    expect(await edit(stopLoss.id, '95')).toMatchObject(refusal('price'));
    expect(await edit(stopLoss.id, '100')).toMatchObject(refusal('price'));
    expect(await edit(takeProfit.id, '100')).toMatchObject(refusal('price'));
    // An exit takes no exits of its own.
    expect(
      await trader.call('PUT', `/orders/${stopLoss.id}/update_tpsl`, {
        body: { take_profit: '130' },
      }),
    ).toMatchObject({ status: 422, body: { errors: { take_profit: ['closes_a_trade'] } } });
    // Short of both prices, the exits move.
    expect((await edit(stopLoss.id, '85')).status).toBe(200);
    expect((await edit(takeProfit.id, '110')).status).toBe(200);
    expect((await trades(trader.call))[0]).toMatchObject({
      status: 'open',
      take_profit: '110',
      stop_loss: '85',
    });
  });

  it('grows a take profit and stop loss that cover the whole trade as the trade grows', async () => {
    const product_id = await freshProduct(sandbox, { margin: true });
    const trader = await sandbox.addUser();
    const opening = await placeMarginBuy(trader.call, product_id);
    const sellHalf = async () =>
      place((await sandbox.addUser()).call, {
        product_id,
        side: 'sell',
        price: '100',
        quantity: '0.5',
      });
    await sellHalf();
    const tradeId = Number((await getOrder(trader.call, opening.id)).trade_id);
    const set = await trader.call('PUT', `/trades/${tradeId}`, {
      body: { trade: { take_profit: '120', stop_loss: '80' } },
    });
    expect(set.status).toBe(200);
    // The rest of the opening order fills: the trade is 1, and so are its exits.
    await sellHalf();
    const live = valid(zListOrdersResponse, await trader.call('GET', '/orders?status=live'));
    expect(live.models.map(({ price, quantity }) => [price, quantity]).sort()).toEqual([
      ['120', '1'],
      ['80', '1'],
    ]);
    await sandbox.sequencer.run((journal) =>
      moveMarkPrice(journal, product_id, new D('80'), sandbox.now()),
    );
    expect((await trades(trader.call, '?status=closed'))[0]).toMatchObject({
      id: tradeId,
      close_quantity: '1',
      close_price: '80',
    });
  });

  it('closes what is left open in whole, even under the smallest order', async () => {
    const { product_id, trader, tradeId } = await openLong();
    await bidAt(product_id, '100', '1');
    const rest = valid(
      zCloseTradeResponse,
      await closeTrade(trader.call, tradeId, { closed_quantity: '0.99995' }),
    );
    expect(rest).toMatchObject({ status: 'open', open_quantity: '0.00005' });
    const closed = valid(
      zCloseTradeResponse,
      await closeTrade(trader.call, tradeId, { closed_quantity: '0.00005' }),
    );
    expect(closed).toMatchObject({ status: 'closed', open_quantity: '0' });
  });

  it('adjust_margin takes back no margin that would leave the trade liquidated at the mark', async () => {
    const { product_id, trader, tradeId } = await openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '120',
      stopLoss: '10',
    });
    const adjust = (delta: string) =>
      trader.call('PUT', `/trades/${tradeId}/adjust_margin`, { body: { delta } });
    valid(zAdjustTradeMarginResponse, await adjust('30'));
    // At 60 the trade loses 40: 80 held leaves 40 over a maintenance of 25.
    await sandbox.sequencer.run((journal) =>
      moveMarkPrice(journal, product_id, new D('60'), sandbox.now()),
    );
    expect(await adjust('-30')).toMatchObject({
      status: 422,
      body: { errors: { delta: ['would_be_liquidated'] } },
    });
    expect(valid(zAdjustTradeMarginResponse, await adjust('-10'))).toMatchObject({
      status: 'open',
      margin_used: '70',
    });
    // 65 held less the loss of 40 is exactly the maintenance: liquidated, so refused.
    expect(await adjust('-5')).toMatchObject({
      status: 422,
      body: { errors: { delta: ['would_be_liquidated'] } },
    });
  });

  it('close_all passes over a trade that an earlier close of the call liquidated', async () => {
    const { product_id, trader, tradeId } = await openLong();
    // A second long at leverage 10: liquidated once the price falls to 95.
    const second = await placeMarginBuy(trader.call, product_id, 10);
    await place((await sandbox.addUser()).call, {
      product_id,
      side: 'sell',
      price: '100',
      quantity: '1',
    });
    const liquidated = (await getOrder(trader.call, second.id)).trade_id;
    // The first close takes the bid at 100, then sells down to 90, which liquidates the second.
    await bidAt(product_id, '100', '0.5');
    await bidAt(product_id, '90', '5');
    const all = valid(zCloseAllTradesResponse, await trader.call('PUT', '/trades/close_all'));
    expect(all.map(({ id, status }) => ({ id, status }))).toEqual([
      { id: tradeId, status: 'closed' },
    ]);
    const closed = await trades(trader.call, '?status=closed');
    expect(closed.find((trade) => trade.id === liquidated)).toMatchObject({ status: 'closed' });
    expect(await trades(trader.call, '?status=open')).toEqual([]);
  });

  it('adjust_margin adds margin from the free balance and takes back only what was added', async () => {
    const { product_id, trader, tradeId } = await openLong();
    const adjust = (delta: string) =>
      trader.call('PUT', `/trades/${tradeId}/adjust_margin`, { body: { delta } });
    const added = valid(zAdjustTradeMarginResponse, await adjust('10'));
    // 60 held against a maintenance of 25: the price may fall 35 before liquidation.
    expect(added).toMatchObject({ margin_used: '60', liquidation_price: '65' });
    expect((await balances(trader.call, 'JPY')).reserved).toBe('60');
    expect(await adjust('-20')).toMatchObject({
      status: 422,
      body: { errors: { delta: ['more_than_the_added_margin'] } },
    });
    expect(await adjust('0')).toMatchObject({
      status: 422,
      body: { errors: { delta: ['must_not_be_zero'] } },
    });
    // JPY has no decimal places: half a yen held could never be taken back.
    expect(await adjust('0.5')).toMatchObject({
      status: 422,
      body: { errors: { delta: ['too_many_decimals'] } },
    });
    expect(await adjust('100000000')).toMatchObject({
      status: 422,
      body: { errors: { user: ['not_enough_free_balance'] } },
    });
    await bidAt(product_id, '100', '0.5');
    const half = valid(
      zCloseTradeResponse,
      await closeTrade(trader.call, tradeId, { closed_quantity: '0.5' }),
    );
    expect(half.margin_used).toBe('35');
    await bidAt(product_id, '100', '0.5');
    valid(zCloseTradeResponse, await closeTrade(trader.call, tradeId));
    expect(await balances(trader.call, 'JPY')).toEqual({ balance: startingJpy, reserved: '0' });
  });
});
