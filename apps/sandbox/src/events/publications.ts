/**
 * What one call's changes publish: each channel carries the REST interface's own view of what
 * changed. A change is rendered while the state is as the call left it; a channel's whole
 * state is rendered once the batch of calls it was changed in is sealed (see hubPublisher).
 * Private channels are filed under their user (subscriptionKey): each user hears of their own
 * orders and fills alone.
 */
import {
  type ChannelName,
  type ChannelParameters,
  channelAddress,
  channels,
} from '@exchange-kit/contract/events';
import { ownView } from '../exchange/executions.js';
import { priceLevels, productView } from '../exchange/market.js';
import { executionView, orderView } from '../exchange/order-view.js';
import { tradeView } from '../exchange/trade-view.js';
import { accountId, hasTradingAccount, tradingAccountView } from '../exchange/trading-accounts.js';
import { accountsOf } from '../exchange/users.js';
import type { Journal } from '../state/journal.js';
import type { Product } from '../state/records.js';
import { subscriptionKey } from './hub.js';

export interface Publication {
  /** Where the hub finds its subscribers (see subscriptionKey). */
  key: string;
  channel: string;
  event: string;
  /**
   * The payload as a JSON string, the way Pusher carries an event's data: rendered at once for
   * a change, left unrendered for a channel's whole state until the publisher renders it. An
   * event still unrendered when it is sent was superseded and is not sent.
   */
  data: string | undefined;
  /** Renders `data` on the state as it then stands. */
  render: () => string;
  /** Whether the payload is the channel's whole state, superseding any event before it. */
  carriesState: boolean;
}

const pairOf = (product: Product) => `${product.baseCurrency}${product.quotedCurrency}`;

/**
 * The call's events, in order: its orders and positions as they now stand (each to its owner), each fill
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
  const add = <Name extends ChannelName>(
    name: Name,
    parameters: ChannelParameters<Name>,
    userId: number | undefined,
    event: string,
    payload: () => unknown,
  ) => {
    const channel = channelAddress(name, parameters);
    const key = subscriptionKey(channel, userId);
    if (!listening(key)) return;
    const { carriesState } = channels[name];
    const render = () => JSON.stringify(payload());
    const data = carriesState ? undefined : render();
    publications.push({ key, channel, event, data, render, carriesState });
  };
  for (const order of journal.orders()) {
    const currency = order.fundingCurrency;
    add('userOrders', { currency }, order.userId, 'updated', () => orderView(state, order));
  }
  for (const position of journal.positions()) {
    const currency = position.fundingCurrency;
    add('userTrades', { currency }, position.userId, 'updated', () => tradeView(state, position));
  }
  for (const fill of journal.fills()) {
    const product = state.products.get(fill.productId);
    if (!product) continue;
    const pair = pairOf(product);
    add('executionsCash', { pair }, undefined, 'created', () => executionView(fill));
    for (const orderId of [fill.takerOrderId, fill.makerOrderId]) {
      const order = state.orders.get(orderId);
      if (!order) continue;
      add('userExecutions', { pair }, order.userId, 'created', () => ownView(fill, order, true));
    }
  }
  for (const account of journal.accounts()) {
    const { userId, currency } = account;
    add('userAccount', { userId, currency }, userId, 'updated', () => {
      const { crypto_accounts, fiat_accounts } = accountsOf(state, userId);
      return [...crypto_accounts, ...fiat_accounts].find((shown) => shown.id === account.id);
    });
  }
  for (const [userId, products] of tradingAccountsChanged(journal)) {
    for (const product of products) {
      const tradingAccountId = accountId(userId, product.id);
      // Rendered once the batch is sealed: the account as its last call left it.
      add('tradingAccount', { tradingAccountId }, userId, 'updated', () =>
        tradingAccountView(state, userId, state.products.get(product.id) ?? product),
      );
    }
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
      add('priceLadders', { pair: pairOf(product), side }, undefined, 'updated', () =>
        priceLevels(state.book(productId)[side]),
      );
    }
  }
  const traded = new Set(journal.fills().map((fill) => fill.productId));
  for (const productId of new Set([...sides.keys(), ...traded, ...journal.marksMoved()])) {
    const product = state.products.get(productId);
    if (!product) continue;
    // Rendered once the batch is sealed: the product as it then stands.
    add('productCash', { pair: pairOf(product), productId: product.id }, undefined, 'updated', () =>
      productView(state, state.products.get(productId) ?? product, now),
    );
  }
  return publications;
}

/**
 * The trading accounts whose figures the call changed, by user: those of the products of the
 * positions it changed, of the balances that fund them, and of the leverage levels it set.
 */
function tradingAccountsChanged(journal: Journal): Map<number, Set<Product>> {
  const state = journal.exchange;
  const changed = new Map<number, Set<Product>>();
  const note = (userId: number, product: Product | undefined) => {
    if (!product || !hasTradingAccount(product)) return;
    const products = changed.get(userId) ?? new Set<Product>();
    products.add(product);
    changed.set(userId, products);
  };
  for (const position of journal.positions()) {
    note(position.userId, state.products.get(position.productId));
  }
  for (const setting of journal.records('leverageSetting')) {
    note(setting.userId, state.products.get(setting.productId));
  }
  const funded = journal.accounts();
  if (funded.length > 0) {
    for (const product of state.products.values()) {
      for (const account of funded) {
        if (account.currency === product.quotedCurrency) note(account.userId, product);
      }
    }
  }
  return changed;
}
