import type { ExchangeState, Fill } from '../state/exchange-state.js';

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
