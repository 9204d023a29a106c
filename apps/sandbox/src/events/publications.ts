/**
 * What one call's changes publish on the public channels, rendered while the state is as the
 * call left it: each channel carries the REST interface's own view of what changed.
 */
import { channelAddress } from '@exchange-kit/contract/events';
import { priceLevels, productView } from '../exchange/market.js';
import { executionView } from '../exchange/order-view.js';
import type { Product } from '../state/exchange-state.js';
import type { Journal } from '../state/journal.js';

export interface Publication {
  address: string;
  event: string;
  /** The payload as a JSON string, the way Pusher carries an event's data. */
  data: string;
}

const pairOf = (product: Product) => `${product.baseCurrency}${product.quotedCurrency}`;

/**
 * The call's public events, in order: each fill it made, then each side of a book it changed,
 * then each product whose market data it changed. `listening` says whether anyone would
 * receive an address: an event no one would receive is not rendered.
 */
export function publicationsOf(
  journal: Journal,
  now: number,
  listening: (address: string) => boolean,
): Publication[] {
  const state = journal.exchange;
  const publications: Publication[] = [];
  const add = (address: string, event: string, payload: () => unknown) => {
    if (listening(address)) publications.push({ address, event, data: JSON.stringify(payload()) });
  };
  for (const fill of journal.fills()) {
    const product = state.products.get(fill.productId);
    if (!product) continue;
    add(channelAddress('executionsCash', { pair: pairOf(product) }), 'created', () =>
      executionView(fill),
    );
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
      add(channelAddress('priceLadders', { pair: pairOf(product), side }), 'updated', () =>
        priceLevels(state.book(productId)[side]),
      );
    }
  }
  const traded = new Set(journal.fills().map((fill) => fill.productId));
  for (const productId of new Set([...sides.keys(), ...traded])) {
    const product = state.products.get(productId);
    if (!product) continue;
    add(
      channelAddress('productCash', { pair: pairOf(product), productId: product.id }),
      'updated',
      () => productView(state, product, now),
    );
  }
  return publications;
}
