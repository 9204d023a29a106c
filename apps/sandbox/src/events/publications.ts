/**
 * What one call's changes publish, rendered while the state is as the call left it: each
 * channel carries the REST interface's own view of what changed. Private channels are filed
 * under their user (subscriptionKey): each user hears of their own orders and fills alone.
 */
import { channelAddress } from '@exchange-kit/contract/events';
import { ownView } from '../exchange/executions.js';
import { priceLevels, productView } from '../exchange/market.js';
import { executionView, orderView } from '../exchange/order-view.js';
import { accountsOf } from '../exchange/users.js';
import type { Product } from '../state/exchange-state.js';
import type { Journal } from '../state/journal.js';
import { subscriptionKey } from './hub.js';

export interface Publication {
  /** Where the hub finds its subscribers (see subscriptionKey). */
  key: string;
  channel: string;
  event: string;
  /** The payload as a JSON string, the way Pusher carries an event's data. */
  data: string;
}

const pairOf = (product: Product) => `${product.baseCurrency}${product.quotedCurrency}`;

/**
 * The call's events, in order: its orders as they now stand (each to its owner), each fill
 * it made (in public, and to each side's owner), each account it changed (to its owner), then
 * each side of a book it changed, then each product whose market data it changed. `listening` says whether anyone listens at a
 * key: an event no one would receive is not rendered.
 */
export function publicationsOf(
  journal: Journal,
  now: number,
  listening: (key: string) => boolean,
): Publication[] {
  const state = journal.exchange;
  const publications: Publication[] = [];
  const add = (
    channel: string,
    userId: number | undefined,
    event: string,
    payload: () => unknown,
  ) => {
    const key = subscriptionKey(channel, userId);
    if (listening(key)) publications.push({ key, channel, event, data: JSON.stringify(payload()) });
  };
  for (const order of journal.orders()) {
    const currency = order.fundingCurrency;
    add(channelAddress('userOrders', { currency }), order.userId, 'updated', () =>
      orderView(state, order),
    );
  }
  for (const fill of journal.fills()) {
    const product = state.products.get(fill.productId);
    if (!product) continue;
    const pair = pairOf(product);
    add(channelAddress('executionsCash', { pair }), undefined, 'created', () =>
      executionView(fill),
    );
    for (const orderId of [fill.takerOrderId, fill.makerOrderId]) {
      const order = state.orders.get(orderId);
      if (!order) continue;
      add(channelAddress('userExecutions', { pair }), order.userId, 'created', () =>
        ownView(fill, order, true),
      );
    }
  }
  for (const account of journal.accounts()) {
    const { userId, currency } = account;
    add(channelAddress('userAccount', { userId, currency }), userId, 'updated', () => {
      const { crypto_accounts, fiat_accounts } = accountsOf(state, userId);
      return [...crypto_accounts, ...fiat_accounts].find((shown) => shown.id === account.id);
    });
  }
  const sides = new Map<number, Set<'buy' | 'sell'>>();
  for (const order of journal.orders()) {
    // A conditional order waits outside the book: the book changes once it is triggered.
    if (order.conditional) continue;
    const changed = sides.get(order.productId) ?? new Set();
    changed.add(order.side);
    sides.set(order.productId, changed);
  }
  for (const [productId, changed] of sides) {
    const product = state.products.get(productId);
    if (!product) continue;
    for (const side of changed) {
      add(
        channelAddress('priceLadders', { pair: pairOf(product), side }),
        undefined,
        'updated',
        () => priceLevels(state.book(productId)[side]),
      );
    }
  }
  const traded = new Set(journal.fills().map((fill) => fill.productId));
  for (const productId of new Set([...sides.keys(), ...traded])) {
    const product = state.products.get(productId);
    if (!product) continue;
    add(
      channelAddress('productCash', { pair: pairOf(product), productId: product.id }),
      undefined,
      'updated',
      () => productView(state, product, now),
    );
  }
  return publications;
}
