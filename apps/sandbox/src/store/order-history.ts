import type { Queryable } from './queryable.js';

export interface OrderHistory {
  /** How many orders to add. */
  orders: number;
  /** Whose orders they are; the user must exist. */
  userId: number;
  /** Of which product; it must exist. */
  productId: number;
  /** When the first was placed; each next one a millisecond later. */
  since: number;
}

/**
 * Adds `orders` cancelled spot buys, the history a long load test leaves behind, in a few
 * statements: a store that size in seconds, to measure a start on it. Ids and time priority
 * follow those in use, and the sequences move past them as that many calls would have.
 */
export async function addOrderHistory(db: Queryable, history: OrderHistory): Promise<void> {
  await db.query(
    `WITH last AS (SELECT coalesce(max(id), 0) AS id, coalesce(max(sequence), 0) AS sequence
                   FROM orders)
     INSERT INTO orders (id, user_id, product_id, client_order_id, order_type, side,
       trading_type, quantity, price, status, leverage_level, funding_currency,
       reserved_currency, sequence, created_at, updated_at)
     SELECT last.id + n, $1, p.id, 'history-' || (last.id + n), 'limit', 'buy', 'spot', 0.01,
       1000 + n % 1000, 'cancelled', 1, p.quoted_currency, p.quoted_currency,
       last.sequence + n, $3::bigint + n, $3::bigint + n
     FROM generate_series(1, $4::int) AS n, products p, last WHERE p.id = $2`,
    [history.userId, history.productId, history.since, history.orders],
  );
  await db.query(
    `SELECT setval('orders_id_seq', greatest((SELECT max(id) FROM orders), 1)),
       setval('orders_sequence_seq', greatest((SELECT max(sequence) FROM orders), 1))`,
  );
}
