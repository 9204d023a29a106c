import type { ExchangeState, Fill, Order } from '../state/exchange-state.js';

/**
 * Every read of fill history goes through here. Fills are in memory today
 * (`fillsByProduct`, in the order they were made); keeping them in the store instead changes
 * this file alone.
 */

const fillsOf = (state: ExchangeState, productId: number): readonly Fill[] =>
  state.fillsByProduct.get(productId) ?? [];

const second = (fill: Fill) => Math.floor(fill.createdAt / 1000);

/** `limit` of a product's fills, newest first, after skipping `offset`; and how many it has. */
export function newestFills(
  state: ExchangeState,
  productId: number,
  offset: number,
  limit: number,
): { fills: Fill[]; total: number } {
  const fills = fillsOf(state, productId);
  const end = Math.max(fills.length - offset, 0);
  return { fills: fills.slice(Math.max(end - limit, 0), end).reverse(), total: fills.length };
}

/**
 * A product's fills made at or after `fromSecond`, oldest first: `limit` of them, and then
 * the rest of the last one's second, so that a caller who asks again from the next second
 * misses none.
 */
export function fillsSince(
  state: ExchangeState,
  productId: number,
  fromSecond: number,
  limit: number,
): Fill[] {
  const fills = fillsOf(state, productId);
  const first = fills.findIndex((fill) => second(fill) >= fromSecond);
  if (first < 0) return [];
  let end = Math.min(first + limit, fills.length);
  const last = fills[end - 1] as Fill;
  while (end < fills.length && second(fills[end] as Fill) === second(last)) end++;
  return fills.slice(first, end);
}

/**
 * The fills of `userId`'s orders on a product, newest first, each with the order of the
 * user's it filled: a fill between two orders of the user's is there once for each.
 */
export function ownFills(
  state: ExchangeState,
  userId: number,
  productId: number,
): { fill: Fill; order: Order }[] {
  const own: { fill: Fill; order: Order }[] = [];
  const fills = fillsOf(state, productId);
  for (let at = fills.length - 1; at >= 0; at--) {
    const fill = fills[at] as Fill;
    for (const id of [fill.takerOrderId, fill.makerOrderId]) {
      const order = state.orders.get(id);
      if (order?.userId === userId) own.push({ fill, order });
    }
  }
  return own;
}

/** The fills of one order, oldest first. */
export function fillsOfOrder(state: ExchangeState, order: Order): Fill[] {
  return fillsOf(state, order.productId).filter(
    (fill) => fill.takerOrderId === order.id || fill.makerOrderId === order.id,
  );
}
