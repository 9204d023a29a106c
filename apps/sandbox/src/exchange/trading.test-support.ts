/** Test support for trading: orders placed and read over HTTP, balances, fresh products. */
import {
  zCreateOrderResponse,
  zGetAccountsResponse,
  zGetOrderResponse,
} from '@exchange-kit/contract/exchange/schemas';
import type * as z from 'zod/mini';
import type { RunningSandbox } from '../server.js';
import { addProduct, type NewProduct } from '../store/seed.js';
import { type Client, newUser, valid } from '../test-support.js';

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

export async function getOrder(call: Client, id: number | string): Promise<Order> {
  return valid(zGetOrderResponse, await call('GET', `/orders/${id}`));
}

/** A BTC/JPY product with an empty book, so every fill on it is one the test set up. */
export function freshProduct(
  sandbox: RunningSandbox,
  options: Partial<NewProduct> = {},
): Promise<number> {
  return sandbox.database.transaction((tx) =>
    addProduct(tx, { base: 'BTC', quote: 'JPY', ...options }),
  );
}

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
export async function tradeAt(sandbox: RunningSandbox, product_id: number, price: string) {
  const buyer = await newUser(sandbox);
  const seller = await newUser(sandbox);
  const bought = await place(buyer.call, { product_id, price, quantity: '0.001' });
  const sold = await place(seller.call, { product_id, side: 'sell', price, quantity: '0.001' });
  return { buyer, bought, sold };
}
