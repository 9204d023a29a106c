import {
  zListBalanceHistoryResponse,
  zListOrderTradesResponse,
  zListTradesResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { D } from '../state/records.js';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import {
  balances,
  freshProduct,
  getOrder,
  openPosition,
  place,
  tradeAt,
} from '../testing/trading.js';
import { moveMarkPrice } from './position-exits.js';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const tradeOf = async (call: Client, id: number) => {
  const trades = valid(zListTradesResponse, await call('GET', '/trades'));
  const trade = trades.models.find((model) => model.id === id);
  if (!trade) throw new Error(`trade ${id} is not listed`);
  return trade;
};

const pnlOf = async (call: Client, id: number) => {
  const { open_pnl, pnl } = await tradeOf(call, id);
  return { open_pnl, pnl };
};

/** The caller's ledger entries in JPY that name a trade, oldest first. */
const tradeEntries = async (call: Client) =>
  valid(zListBalanceHistoryResponse, await call('GET', '/balance_history?currency=JPY'))
    .filter((entry) => entry.source_object_type === 'Trade')
    .reverse()
    .map(({ amount, source_action, source_object_id }) => ({
      amount,
      source_action,
      source_object_id,
    }));

/** What `POST /test/products/{product_id}/mark_price` does to the state. */
const moveMark = (productId: number, price: string) =>
  sandbox.sequencer.run((journal) =>
    moveMarkPrice(journal, productId, new D(price), sandbox.now()),
  );

const startingJpy = new D('100000000');

describe('the mark price of positions', () => {
  it('values open positions at a moved mark until the next fill of the product', async () => {
    const { product_id, trader, tradeId } = await openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '200',
      stopLoss: '10',
    });
    expect(await pnlOf(trader.call, tradeId)).toEqual({ open_pnl: '0', pnl: '0' });

    await moveMark(product_id, '112.5');
    // A long of 1 BTC opened at 100, marked at 112.5.
    expect(await pnlOf(trader.call, tradeId)).toEqual({ open_pnl: '12.5', pnl: '12.5' });

    await tradeAt(sandbox, product_id, '90');
    expect(await pnlOf(trader.call, tradeId)).toEqual({ open_pnl: '-10', pnl: '-10' });
  });

  it('fires a stop loss it reaches: the trade closes at the mark, its loss in the ledger', async () => {
    const { product_id, trader, tradeId, takeProfit, stopLoss } = await openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '120',
      stopLoss: '80',
    });
    await moveMark(product_id, '80.5');
    expect((await tradeOf(trader.call, tradeId)).status).toBe('open');

    await moveMark(product_id, '79');
    expect(await tradeOf(trader.call, tradeId)).toMatchObject({
      status: 'closed',
      open_quantity: '0',
      close_price: '79',
      close_pnl: '-21',
      margin_used: '0',
      stop_loss: null,
      take_profit: null,
    });
    expect(await tradeEntries(trader.call)).toEqual([
      { amount: '-21', source_action: 'cfd_pnl', source_object_id: tradeId },
    ]);
    expect(await balances(trader.call, 'JPY')).toEqual({
      balance: startingJpy.minus(21).toFixed(),
      reserved: '0',
    });
    for (const exit of [takeProfit, stopLoss]) {
      expect((await getOrder(trader.call, exit.id)).status).toBe('cancelled');
    }
  });

  it('fires an exit where it was moved to, and refuses one moved where the mark is', async () => {
    const { product_id, trader, tradeId, stopLoss } = await openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '200',
      stopLoss: '10',
    });
    await moveMark(product_id, '90');
    // Moved to where the mark already is, it would go off at once: refused, as a new stop is.
    const reached = await trader.call('PUT', `/orders/${stopLoss.id}`, { body: { price: '95' } });
    expect(reached).toMatchObject({
      status: 422,
      body: { errors: { price: ['would_trigger_immediately'] } },
    });
    // Moved by a call that trades nothing, the stop loss waits for the mark at its new price.
    const moved = await trader.call('PUT', `/orders/${stopLoss.id}`, { body: { price: '85' } });
    expect(moved.status).toBe(200);
    await moveMark(product_id, '86');
    expect((await tradeOf(trader.call, tradeId)).status).toBe('open');
    await moveMark(product_id, '85');
    expect(await tradeOf(trader.call, tradeId)).toMatchObject({
      status: 'closed',
      close_price: '85',
      close_pnl: '-15',
    });
  });

  it('fires a take profit it reaches on a short, paying the profit into the ledger', async () => {
    const { product_id, trader, tradeId } = await openPosition(sandbox, {
      side: 'sell',
      leverage: 4,
      takeProfit: '90',
      stopLoss: '130',
    });
    await moveMark(product_id, '90');
    expect(await tradeOf(trader.call, tradeId)).toMatchObject({
      status: 'closed',
      close_price: '90',
      close_pnl: '10',
    });
    expect(await tradeEntries(trader.call)).toEqual([
      { amount: '10', source_action: 'cfd_pnl', source_object_id: tradeId },
    ]);
    expect(await balances(trader.call, 'JPY')).toEqual({
      balance: startingJpy.plus(10).toFixed(),
      reserved: '0',
    });
  });
});

describe('liquidation', () => {
  it('liquidates a long once the mark falls to its liquidation price, not before', async () => {
    const { product_id, trader, tradeId, takeProfit, stopLoss } = await openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '200',
      stopLoss: '10',
    });
    // Margin 50, maintenance 25: margin plus open P&L falls to 25 at 75.
    expect(await tradeOf(trader.call, tradeId)).toMatchObject({
      margin_used: '50',
      maintenance_margin: '25',
      liquidation_price: '75',
    });
    await moveMark(product_id, '75.01');
    expect((await tradeOf(trader.call, tradeId)).status).toBe('open');

    await moveMark(product_id, '75');
    expect(await tradeOf(trader.call, tradeId)).toMatchObject({
      status: 'closed',
      close_price: '75',
      close_pnl: '-25',
      margin_used: '0',
      liquidation_price: null,
    });
    expect(await tradeEntries(trader.call)).toEqual([
      { amount: '-25', source_action: 'cfd_pnl', source_object_id: tradeId },
    ]);
    expect(await balances(trader.call, 'JPY')).toEqual({
      balance: startingJpy.minus(25).toFixed(),
      reserved: '0',
    });
    for (const exit of [takeProfit, stopLoss]) {
      expect((await getOrder(trader.call, exit.id)).status).toBe('cancelled');
    }
  });

  it("lists every trade of a resting order that opened another after its first's liquidation", async () => {
    const product_id = await freshProduct(sandbox, { margin: true });
    const trader = sandbox.addUser();
    const taker = sandbox.addUser();
    const resting = await place(trader.call, {
      product_id,
      side: 'buy',
      price: '100',
      quantity: '2',
      trading_type: 'margin',
      leverage_level: 2,
    });
    await place(taker.call, { product_id, side: 'sell', price: '100', quantity: '1' });
    const first = (await getOrder(trader.call, resting.id)).trade_id;
    await moveMark(product_id, '75');
    expect((await tradeOf(trader.call, Number(first))).status).toBe('closed');
    // Its position gone, the order still rests, and its next fill opens another.
    await place(taker.call, { product_id, side: 'sell', price: '100', quantity: '1' });
    const second = (await getOrder(trader.call, resting.id)).trade_id;
    expect(second).not.toBe(first);
    const trades = valid(
      zListOrderTradesResponse,
      await trader.call('GET', `/orders/${resting.id}/trades`),
    );
    expect(trades.map(({ id, status, quantity }) => ({ id, status, quantity }))).toEqual([
      { id: first, status: 'closed', quantity: '1' },
      { id: second, status: 'open', quantity: '1' },
    ]);
  });

  it('liquidates a short once the mark rises to its liquidation price, not before', async () => {
    const { product_id, trader, tradeId } = await openPosition(sandbox, {
      side: 'sell',
      leverage: 4,
      takeProfit: '10',
      stopLoss: '200',
    });
    expect((await tradeOf(trader.call, tradeId)).liquidation_price).toBe('112.5');
    await moveMark(product_id, '112.49');
    expect((await tradeOf(trader.call, tradeId)).status).toBe('open');

    await moveMark(product_id, '130');
    expect(await tradeOf(trader.call, tradeId)).toMatchObject({
      status: 'closed',
      close_price: '130',
      close_pnl: '-25',
    });
    // Marked at 130 the short lost 30; no more than its margin of 25 is taken.
    expect(await balances(trader.call, 'JPY')).toEqual({
      balance: startingJpy.minus(25).toFixed(),
      reserved: '0',
    });
  });

  it('liquidates at the price of a trade that takes the mark past the liquidation price', async () => {
    const { product_id, trader, tradeId } = await openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '200',
      stopLoss: '10',
    });
    await tradeAt(sandbox, product_id, '76');
    expect((await tradeOf(trader.call, tradeId)).status).toBe('open');

    await tradeAt(sandbox, product_id, '74');
    expect(await tradeOf(trader.call, tradeId)).toMatchObject({
      status: 'closed',
      close_price: '74',
      close_pnl: '-26',
    });
    expect(await tradeEntries(trader.call)).toEqual([
      { amount: '-26', source_action: 'cfd_pnl', source_object_id: tradeId },
    ]);
  });

  /**
   * A margin position of 0.03 BTC at 9,500,000 with 1,000 JPY added to its margin: its
   * liquidation price has no end of decimals, so the trade shows it cut to 8 places.
   */
  const openCut = async (side: 'buy' | 'sell', leverage: number, added: string) => {
    const product_id = await freshProduct(sandbox, { margin: true });
    const [trader, counterpart] = [sandbox.addUser(), sandbox.addUser()];
    const price = '9500000';
    const opening = await place(trader.call, {
      product_id,
      side,
      price,
      quantity: '0.03',
      trading_type: 'margin',
      leverage_level: leverage,
    });
    await place(counterpart.call, {
      product_id,
      side: side === 'buy' ? 'sell' : 'buy',
      price,
      quantity: '0.03',
    });
    const tradeId = (await getOrder(trader.call, opening.id)).trade_id as number;
    const delta = { body: { delta: added } };
    expect((await trader.call('PUT', `/trades/${tradeId}/adjust_margin`, delta)).status).toBe(200);
    return { product_id, trader, tradeId };
  };

  it('shows a liquidation price cut to the side where a mark at it liquidates', async () => {
    for (const [side, shown] of [
      ['buy', '8991666.66666666'],
      ['sell', '10008333.33333334'],
    ] as const) {
      const { product_id, trader, tradeId } = await openCut(side, 10, '1000');
      expect((await tradeOf(trader.call, tradeId)).liquidation_price).toBe(shown);
      await moveMark(product_id, shown);
      expect((await tradeOf(trader.call, tradeId)).status).toBe('closed');
    }
  });

  it('shows no liquidation price on a long that no mark price liquidates', async () => {
    // At 1x the margin is the notional, 285,000, and maintenance half of it: with 150,000
    // added, margin less maintenance is more than the whole notional, which no fall loses.
    const { product_id, trader, tradeId } = await openCut('buy', 1, '150000');
    expect((await tradeOf(trader.call, tradeId)).liquidation_price).toBeNull();
    await moveMark(product_id, '0.00000001');
    expect((await tradeOf(trader.call, tradeId)).status).toBe('open');
  });
});
