import {
  zCancelOrderResponse,
  zEditOrderResponse,
  zListBalanceHistoryResponse,
  zListOrdersResponse,
  zListOwnExecutionsResponse,
  zListTradesResponse,
  zUpdateOrderTpslResponse,
} from '@exchange-kit/contract/exchange/schemas';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { D, type Position, type Product } from '../state/records.js';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import * as trading from '../testing/trading.js';
import { balances, getOrder, openPosition, place } from '../testing/trading.js';
import { liquidatedAt, liquidationPrice, requiredMargin } from './positions.js';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const startingJpy = '100000000';

const tpsl = (call: Client, id: number | string) =>
  call('PUT', `/orders/${id}/update_tpsl`, { body: {} });

describe('margin positions', () => {
  it('a filled margin order opens a position that holds its margin and swaps no currency', async () => {
    const { trader, tradeId, takeProfit, stopLoss } = await openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '120',
      stopLoss: '80',
    });
    expect(await balances(trader.call, 'JPY')).toEqual({ balance: startingJpy, reserved: '50' });
    expect(await balances(trader.call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
    for (const order of [takeProfit, stopLoss]) {
      expect(order).toMatchObject({
        side: 'sell',
        quantity: '1',
        unwound_trade_id: tradeId,
        source_action: 'netout_open',
      });
      const answer = valid(zUpdateOrderTpslResponse, await tpsl(trader.call, order.id));
      expect(answer).toMatchObject({ margin_used: '0', unwound_trade_leverage_level: 2 });
    }
  });

  it('its take profit closes it at a profit, paid into the funding currency', async () => {
    const { product_id, trader, takeProfit, stopLoss } = await openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '120',
      stopLoss: '80',
    });
    await trading.tradeAt(sandbox, product_id, '120');
    expect((await getOrder(trader.call, stopLoss.id)).status).toBe('cancelled');
    // Resting now, the take profit closes a position: it holds no margin of its own.
    expect((await balances(trader.call, 'JPY')).reserved).toBe('50');
    const buyer = sandbox.addUser();
    await place(buyer.call, { product_id, price: '120', quantity: '1' });
    expect(await getOrder(trader.call, takeProfit.id)).toMatchObject({
      status: 'filled',
      average_price: '120',
    });
    expect(await balances(trader.call, 'JPY')).toEqual({
      balance: '100000020',
      reserved: '0',
    });
    expect(await balances(trader.call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
  });

  it('its stop loss closes a short at a loss that takes no more than the margin', async () => {
    const { product_id, trader, takeProfit, stopLoss } = await openPosition(sandbox, {
      side: 'sell',
      leverage: 4,
      takeProfit: '50',
      stopLoss: '110',
    });
    expect((await balances(trader.call, 'JPY')).reserved).toBe('25');
    const asker = sandbox.addUser();
    await place(asker.call, { product_id, side: 'sell', price: '150', quantity: '1' });
    await trading.tradeAt(sandbox, product_id, '110');
    expect(await getOrder(trader.call, stopLoss.id)).toMatchObject({
      status: 'filled',
      average_price: '150',
    });
    expect((await getOrder(trader.call, takeProfit.id)).status).toBe('cancelled');
    // Bought back at 150, the short lost 50; its margin was 25.
    expect(await balances(trader.call, 'JPY')).toEqual({ balance: '99999975', reserved: '0' });
  });

  it("each of the owner's margin fills shows what it realized, as paid to the ledger", async () => {
    const { product_id, trader, tradeId } = await openPosition(sandbox, {
      side: 'sell',
      leverage: 4,
      takeProfit: '50',
      stopLoss: '110',
    });
    const asker = sandbox.addUser();
    await place(asker.call, { product_id, side: 'sell', price: '150', quantity: '1' });
    await trading.tradeAt(sandbox, product_id, '110');
    const own = valid(
      zListOwnExecutionsResponse,
      await trader.call('GET', `/executions/me?product_id=${product_id}`),
    );
    // Newest first: the stop loss bought back at 150, a loss of 50 cut to the margin of 25.
    expect(own.models).toMatchObject([
      { my_side: 'buy', price: '150', target: 'margin', pnl: '-25' },
      { my_side: 'sell', price: '100', target: 'margin', pnl: '0' },
    ]);
    const paid = valid(
      zListBalanceHistoryResponse,
      await trader.call('GET', '/balance_history?currency=JPY&source_action=cfd_pnl'),
    );
    expect(paid).toMatchObject([{ amount: '-25', source_object_id: tradeId }]);
    // The spot side of the same fill realized nothing a trade holds.
    const spot = valid(
      zListOwnExecutionsResponse,
      await asker.call('GET', `/executions/me?product_id=${product_id}`),
    );
    expect(spot.models).toMatchObject([{ my_side: 'sell', target: 'spot' }]);
    expect(spot.models[0]).not.toHaveProperty('pnl');
  });

  it('a margin order cancelled after part of it filled leaves a take profit and stop loss on that part', async () => {
    const product_id = await trading.freshProduct(sandbox, { margin: true });
    const trader = sandbox.addUser();
    const counterpart = sandbox.addUser();
    const opening = await trading.placeMarginBuy(trader.call, product_id);
    valid(
      zUpdateOrderTpslResponse,
      await trader.call('PUT', `/orders/${opening.id}/update_tpsl`, {
        body: { take_profit: '120', stop_loss: '80' },
      }),
    );
    await place(counterpart.call, { product_id, side: 'sell', price: '100', quantity: '0.4' });
    // 30 held for the 0.6 still to fill, 20 by the position of 0.4.
    expect((await balances(trader.call, 'JPY')).reserved).toBe('50');
    const cancelled = valid(
      zCancelOrderResponse,
      await trader.call('PUT', `/orders/${opening.id}/cancel`),
    );
    expect(cancelled).toMatchObject({ status: 'cancelled', margin_used: '50' });
    expect((await balances(trader.call, 'JPY')).reserved).toBe('20');
    const waiting = valid(zListOrdersResponse, await trader.call('GET', '/orders?status=live'));
    expect(
      waiting.models.map(({ price, quantity, unwound_trade_id }) => ({
        price,
        quantity,
        unwound_trade_id,
      })),
    ).toEqual(
      ['80', '120'].map((price) => ({
        price,
        quantity: '0.4',
        unwound_trade_id: cancelled.trade_id,
      })),
    );
  });

  it('a take profit cannot be made larger than the position it closes', async () => {
    const { trader, takeProfit } = await openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '120',
      stopLoss: '80',
    });
    const refused = await trader.call('PUT', `/orders/${takeProfit.id}`, {
      body: { quantity: '1.5' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ errors: { quantity: ['more_than_the_open_position'] } });
    const edited = valid(
      zEditOrderResponse,
      await trader.call('PUT', `/orders/${takeProfit.id}`, { body: { quantity: '0.5' } }),
    );
    expect(edited.quantity).toBe('0.5');
  });

  it('two margin orders that open positions from one fill each get a position of their own', async () => {
    const product_id = await trading.freshProduct(sandbox, { margin: true });
    const [long, short] = [sandbox.addUser(), sandbox.addUser()];
    const margin = { product_id, price: '100', quantity: '1', trading_type: 'margin' };
    const bought = await place(long.call, { ...margin, side: 'buy', leverage_level: 2 });
    const sold = await place(short.call, { ...margin, side: 'sell', leverage_level: 4 });
    const longId = (await getOrder(long.call, bought.id)).trade_id;
    const shortId = (await getOrder(short.call, sold.id)).trade_id;
    expect(longId).not.toBe(shortId);
    const trades = async (call: Client) =>
      valid(zListTradesResponse, await call('GET', '/trades?status=open')).models.map((trade) => [
        trade.id,
        trade.side,
        trade.margin_used,
      ]);
    expect(await trades(long.call)).toEqual([[longId, 'long', '50']]);
    expect(await trades(short.call)).toEqual([[shortId, 'short', '25']]);
    // Each holds its own margin.
    expect(await balances(long.call, 'JPY')).toEqual({ balance: startingJpy, reserved: '50' });
    expect(await balances(short.call, 'JPY')).toEqual({ balance: startingJpy, reserved: '25' });
  });
});

const btcJpy = { baseCurrency: 'BTC', quotedCurrency: 'JPY' } as Product;

/** Decimals from `min` to `max` with up to 8 places. */
const amount = (min: number, max: number) =>
  fc
    .bigInt({ min: BigInt(min * 1e8), max: BigInt(max * 1e8) })
    .map((n) => new D(n.toString()).div(1e8));

/**
 * An open position as fills and adjust_margin leave it: some of it closed, and a margin
 * anywhere from under nothing to several times what it requires.
 */
const openPositions = fc
  .record({
    side: fc.constantFrom('buy' as const, 'sell' as const),
    fundingCurrency: fc.constantFrom('BTC', 'JPY'),
    leverageLevel: fc.constantFrom(1, 2, 4, 5, 10, 25),
    quantity: amount(0.0001, 1000),
    price: amount(1, 10_000_000),
    closedShare: fc.integer({ min: 0, max: 99 }),
    // Below zero too, which no position holds: the price is solved for any margin.
    marginShare: fc.integer({ min: -300, max: 400 }),
  })
  .map(({ quantity, price, closedShare, marginShare, ...rest }) => {
    const closedQuantity = quantity.times(closedShare).div(100).toDecimalPlaces(8, D.ROUND_DOWN);
    const position = {
      ...rest,
      quantity,
      openValue: quantity.times(price),
      closedQuantity,
      // Every fill at one price: the closed part cost that price.
      closedCost: closedQuantity.times(price),
      margin: new D(0),
    } as Position;
    const margin = requiredMargin(position, btcJpy).times(marginShare).div(100);
    return { ...position, margin } as Position;
  });

describe('liquidationPrice', () => {
  // What closeAtMark's index of the prices that reach a position stands on: a mark beyond the
  // liquidation price by more than a trillionth of it liquidates, and one short of it does not.
  it('is where liquidatedAt starts to hold, to within a trillionth of it', () => {
    fc.assert(
      fc.property(
        openPositions,
        fc.constantFrom(-1e-6, -1e-11, -1e-13, 0, 1e-13, 1e-11, 1e-6),
        amount(0.01, 100_000_000),
        (position, offset, anyMark) => {
          const price = liquidationPrice(position, btcJpy);
          const long = position.side === 'buy';
          const beyond = (mark: D) => {
            if (price === null) return false;
            if (!price.isFinite()) return true;
            const distance = mark.minus(price).abs();
            if (distance.lte(price.abs().times(1e-12))) return undefined;
            return long ? mark.lt(price) : mark.gt(price);
          };
          const marks = [anyMark];
          if (price?.isFinite() && price.gt(0)) marks.push(price.times(1 + offset));
          for (const mark of marks) {
            const expected = beyond(mark);
            if (expected !== undefined) {
              expect(liquidatedAt(position, btcJpy, mark), mark.toFixed()).toBe(expected);
            }
          }
        },
      ),
      { seed: 30, numRuns: 2000 },
    );
  });
});
