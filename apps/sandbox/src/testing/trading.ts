/**
 * Test support for trading: orders placed and read by a client (through the call pipeline in
 * memory, or over HTTP), balances, fresh products, positions.
 */
import {
  zCreateOrderResponse,
  zGetAccountsResponse,
  zGetOrderResponse,
  zListOrdersResponse,
  zUpdateOrderTpslResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { expect } from 'vitest';
import type * as z from 'zod/mini';
import type { NewProduct } from '../demo-market.js';
import { addProduct } from '../seeding.js';
import type { RunningSandbox } from '../server.js';
import { type Client, newUser, valid } from '../test-support.js';

/** What the trading tests need of a sandbox, in memory or serving HTTP on a store. */
export interface TradingSandbox {
  addUser(): { userId: number; call: Client } | Promise<{ userId: number; call: Client }>;
  addProduct(product: NewProduct): number | Promise<number>;
}

/** A sandbox serving HTTP on its store, for the trading tests of what the store keeps. */
export function storedTrading(sandbox: RunningSandbox): TradingSandbox {
  return {
    addUser: () => newUser(sandbox),
    addProduct: (product) => sandbox.sequencer.run((journal) => addProduct(journal, product)),
  };
}

export type Order = z.infer<typeof zCreateOrderResponse>;

/** Places an order, a limit buy of 0.01 unless `body` says otherwise, and checks the answer. */
export async function place(call: Client, body: Record<string, unknown>): Promise<Order> {
  return valid(
    zCreateOrderResponse,
    await call('POST', '/orders', {
      body: { order_type: 'limit', side: 'buy', quantity: '0.01', ...body },
    }),
  );
}

/** A margin buy of 1 at 100 on `product_id`, at `leverage`: the trade most tests open. */
export const placeMarginBuy = (call: Client, product_id: number, leverage = 2) =>
  place(call, {
    product_id,
    price: '100',
    quantity: '1',
    trading_type: 'margin',
    leverage_level: leverage,
  });

export async function getOrder(call: Client, id: number | string): Promise<Order> {
  return valid(zGetOrderResponse, await call('GET', `/orders/${id}`));
}

/** A BTC/JPY product with an empty book, so every fill on it is one the test set up. */
export async function freshProduct(
  sandbox: TradingSandbox,
  options: Partial<NewProduct> = {},
): Promise<number> {
  return sandbox.addProduct({ base: 'BTC', quote: 'JPY', ...options });
}

/** `PUT /trades/{id}/close`, with `body` (`closed_quantity`) or none: all that is open. */
export const closeTrade = (call: Client, id: number, body?: object) =>
  call('PUT', `/trades/${id}/close`, body === undefined ? {} : { body });

/** The caller's balance and reserved balance in `currency`, as decimal strings. */
export async function balances(call: Client, currency: string) {
  const accounts = valid(zGetAccountsResponse, await call('GET', '/accounts'));
  const account = [...accounts.crypto_accounts, ...accounts.fiat_accounts].find(
    (entry) => entry.currency === currency,
  );
  return { balance: String(account?.balance), reserved: String(account?.reserved_balance) };
}

/**
 * A trade of 0.001 between two new users at `price`, the product's last traded price then:
 * a resting buy, and the sell that takes it.
 */
export async function tradeAt(sandbox: TradingSandbox, product_id: number, price: string) {
  const buyer = await sandbox.addUser();
  const seller = await sandbox.addUser();
  const bought = await place(buyer.call, { product_id, price, quantity: '0.001' });
  const sold = await place(seller.call, { product_id, side: 'sell', price, quantity: '0.001' });
  return { buyer, bought, sold };
}

/**
 * A margin order of 1 BTC at 100 with its take profit and stop loss, filled by a spot
 * counterpart: the position it opens, and the two conditional orders waiting on it.
 */
export async function openPosition(
  sandbox: TradingSandbox,
  options: {
    side: 'buy' | 'sell';
    leverage: number;
    takeProfit: string;
    stopLoss: string;
  },
) {
  const product_id = await freshProduct(sandbox, { margin: true });
  const trader = await sandbox.addUser();
  const counterpart = await sandbox.addUser();
  const opening = await place(trader.call, {
    product_id,
    side: options.side,
    price: '100',
    quantity: '1',
    trading_type: 'margin',
    leverage_level: options.leverage,
  });
  valid(
    zUpdateOrderTpslResponse,
    await trader.call('PUT', `/orders/${opening.id}/update_tpsl`, {
      body: { take_profit: options.takeProfit, stop_loss: options.stopLoss },
    }),
  );
  await place(counterpart.call, {
    product_id,
    side: options.side === 'buy' ? 'sell' : 'buy',
    price: '100',
    quantity: '1',
  });
  const opened = await getOrder(trader.call, opening.id);
  expect(opened.status).toBe('filled');
  if (typeof opened.trade_id !== 'number') throw new Error('the filled order opened no position');
  const waiting = valid(zListOrdersResponse, await trader.call('GET', '/orders?status=live'));
  const byPrice = (price: string) => {
    const order = waiting.models.find((model) => model.price === price);
    if (!order) throw new Error(`nothing waits at ${price}`);
    return order;
  };
  return {
    product_id,
    trader,
    tradeId: opened.trade_id,
    takeProfit: byPrice(options.takeProfit),
    stopLoss: byPrice(options.stopLoss),
  };
}
