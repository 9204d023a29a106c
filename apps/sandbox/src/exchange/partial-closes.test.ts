import {
  zAdjustTradeMarginResponse,
  zCloseTradeResponse,
  zListOrdersResponse,
  zListTradesResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { balances, closeTrade, freshProduct, getOrder, place } from '../testing/trading.js';

// What a trade closed in part still holds: the price of its open part, its margin, and the
// take profit and stop loss its order leaves once done.

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const tradeOf = async (call: Client, id: number) =>
  valid(zListTradesResponse, await call('GET', '/trades')).models.find((trade) => trade.id === id);

/**
 * A margin buy of `quantity` at `price` on a product of its own, at `leverage`, placed after
 * the seller's offer of `offered` at `price`, if any.
 */
async function marginBuy(
  quantity: string,
  price: string,
  leverage: number,
  offered?: { price: string; quantity: string },
) {
  const product_id = await freshProduct(sandbox, { margin: true });
  const [trader, seller, buyer] = [sandbox.addUser(), sandbox.addUser(), sandbox.addUser()];
  if (offered) await place(seller.call, { product_id, side: 'sell', ...offered });
  const opening = await place(trader.call, {
    product_id,
    price,
    quantity,
    trading_type: 'margin',
    leverage_level: leverage,
  });
  return { product_id, trader, seller, buyer, opening };
}

const tradeIdOf = async (call: Client, orderId: number | string) =>
  Number((await getOrder(call, orderId)).trade_id);

describe('a trade closed in part', () => {
  it('averages a fill that adds to it with what is open, not with what was closed', async () => {
    const offered = { price: '80', quantity: '0.5' };
    const { product_id, trader, seller, buyer, opening } = await marginBuy('1', '90', 2, offered);
    const tradeId = await tradeIdOf(trader.call, opening.id);
    await place(buyer.call, { product_id, price: '91', quantity: '0.25' });
    await closeTrade(trader.call, tradeId, { closed_quantity: '0.25' });
    // The rest of the order fills at 90: open are 0.25 bought at 80 and 0.5 at 90.
    await place(seller.call, { product_id, side: 'sell', price: '90', quantity: '0.5' });
    expect(await tradeOf(trader.call, tradeId)).toMatchObject({
      open_quantity: '0.75',
      open_price: '86.66666666',
      margin_used: '32.5',
      close_pnl: '2.75',
    });
    await place(buyer.call, { product_id, price: '91', quantity: '0.75' });
    const closed = valid(zCloseTradeResponse, await closeTrade(trader.call, tradeId));
    // Bought 1 for 85 in all and sold it for 91: 6, however the closes split it.
    expect(closed).toMatchObject({ status: 'closed', close_pnl: '6', margin_used: '0' });
    expect(await balances(trader.call, 'JPY')).toEqual({ balance: '100000006', reserved: '0' });
  });

  it('takes a loss beyond the margin it releases from the margin added to the trade', async () => {
    const { product_id, trader, seller, buyer, opening } = await marginBuy('0.2', '100', 10);
    await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '0.2' });
    const tradeId = await tradeIdOf(trader.call, opening.id);
    const added = await trader.call('PUT', `/trades/${tradeId}/adjust_margin`, {
      body: { delta: '10' },
    });
    expect(valid(zAdjustTradeMarginResponse, added).margin_used).toBe('12');
    await place(buyer.call, { product_id, price: '85', quantity: '0.2' });
    // Half closed 15 under its price: a loss of 1.5, of which the release covers 1.
    const half = valid(
      zCloseTradeResponse,
      await closeTrade(trader.call, tradeId, { closed_quantity: '0.1' }),
    );
    expect(half).toMatchObject({ close_pnl: '-1.5', margin_used: '10.5' });
    expect(await balances(trader.call, 'JPY')).toEqual({
      balance: '99999998.5',
      reserved: '10.5',
    });
    valid(zCloseTradeResponse, await closeTrade(trader.call, tradeId));
    expect(await balances(trader.call, 'JPY')).toEqual({ balance: '99999997', reserved: '0' });
  });

  it('leaves an order, once done, exits of no more than its trade holds open', async () => {
    const { product_id, trader, seller, buyer, opening } = await marginBuy('1', '100', 2);
    await trader.call('PUT', `/orders/${opening.id}/update_tpsl`, {
      body: { take_profit: '120', stop_loss: '80' },
    });
    await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '0.5' });
    const tradeId = await tradeIdOf(trader.call, opening.id);
    await place(buyer.call, { product_id, price: '101', quantity: '0.3' });
    await closeTrade(trader.call, tradeId, { closed_quantity: '0.3' });
    await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '0.5' });
    expect((await getOrder(trader.call, opening.id)).status).toBe('filled');
    const live = valid(zListOrdersResponse, await trader.call('GET', '/orders?status=live'));
    const exits = live.models
      .filter((order) => order.unwound_trade_id === tradeId)
      .map((order) => [order.order_type, order.quantity]);
    // Filled 1, of which 0.3 is closed already.
    expect(exits.sort()).toEqual([
      ['limit', '0.7'],
      ['stop', '0.7'],
    ]);
    expect(await tradeOf(trader.call, tradeId)).toMatchObject({
      open_quantity: '0.7',
      take_profit: '120',
      stop_loss: '80',
    });
  });
});
