import type { Fill } from '../state/records.js';
import { folded, type SecondOfFills, secondOf } from '../state/seconds-of-a-day.js';
import type { Table } from './table.js';

/** A second of one product's fills, folded (see `SecondOfFills`). */
export interface ProductSecond extends SecondOfFills {
  readonly productId: number;
}

/**
 * Each product's fills folded per second (migrations 0030, 0033), which a start reads a day of: a
 * batch's seconds are folded into those the store holds, a second split across two batches
 * alike. First and last are by id, which only grows with time.
 */
export const fillSeconds: Table<ProductSecond> = {
  name: 'fill_seconds',
  columns: [
    ['product_id', 'bigint', 'productId'],
    ['second', 'bigint', 'second'],
    ['low', 'numeric', 'low'],
    ['high', 'numeric', 'high'],
    ['volume', 'numeric', 'volume'],
    ['value', 'numeric', 'value'],
    ['first_fill_id', 'bigint', (second) => second.first.id],
    ['last_fill_id', 'bigint', (second) => second.last.id],
  ],
  onConflict: `ON CONFLICT (product_id, second) DO UPDATE SET
    low = least(fill_seconds.low, EXCLUDED.low),
    high = greatest(fill_seconds.high, EXCLUDED.high),
    volume = fill_seconds.volume + EXCLUDED.volume,
    value = fill_seconds.value + EXCLUDED.value,
    first_fill_id = least(fill_seconds.first_fill_id, EXCLUDED.first_fill_id),
    last_fill_id = greatest(fill_seconds.last_fill_id, EXCLUDED.last_fill_id)`,
};

/** A batch's fills folded per product and second: one row of `fillSeconds` each. */
export function secondsFolded(fills: readonly Fill[]): ProductSecond[] {
  const bySecond = new Map<string, ProductSecond>();
  for (const fill of fills) {
    const key = `${fill.productId}:${secondOf(fill.createdAt)}`;
    bySecond.set(key, { ...folded(bySecond.get(key), fill), productId: fill.productId });
  }
  return [...bySecond.values()];
}
