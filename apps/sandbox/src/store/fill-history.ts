import type { Queryable } from './queryable.js';

export interface FillHistory {
  /** How many fills to add. */
  fills: number;
  /** Whose orders they fill: each fill is between two of the user's orders on `productId`. */
  userId: number;
  productId: number;
  /** When the first was made, and how many milliseconds apart the next ones are. */
  since: number;
  every: number;
}

/**
 * Adds `fills` fills of 0.01, the n-th (from 1) at 1000 + n % 1000, each between two of the
 * user's orders on the product, which it must have: the trades a long run leaves behind, in a
 * few statements. Ids follow those in use, and the sequence moves past them; the store counts
 * them as it counts every fill written.
 */
export async function addFillHistory(db: Queryable, history: FillHistory): Promise<void> {
  await db.query(
    `WITH own AS (SELECT array_agg(id ORDER BY id) AS ids FROM orders
                  WHERE user_id = $1 AND product_id = $2),
       last AS (SELECT coalesce(max(id), 0) AS id FROM fills)
     INSERT INTO fills (id, product_id, taker_order_id, maker_order_id, taker_side, price,
       quantity, created_at)
     SELECT last.id + n, $2, own.ids[1 + n % cardinality(own.ids)],
       own.ids[1 + (n + 1) % cardinality(own.ids)], 'buy', 1000 + n % 1000, 0.01,
       $3::bigint + (n - 1) * $5::bigint
     FROM generate_series(1, $4::int) AS n, last, own`,
    [history.userId, history.productId, history.since, history.fills, history.every],
  );
  await db.query(`SELECT setval('fills_id_seq', greatest((SELECT max(id) FROM fills), 1))`);
}
