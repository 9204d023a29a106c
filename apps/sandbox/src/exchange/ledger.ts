import { HttpError } from '../http/types.js';
import type { Queryable } from '../store/database.js';
import type { OrderRow } from './order-view.js';

/**
 * What an order must hold of its owner's funds for its unfilled part: the quote amount of a
 * spot buy, the base amount of a spot sell, and the margin (notional / leverage) in the
 * funding currency of any other trading type. Conditional orders hold nothing: they only
 * close a position when triggered.
 */
export function reserveFor(
  order: Pick<
    OrderRow,
    | 'side'
    | 'trading_type'
    | 'conditional'
    | 'base_currency'
    | 'quoted_currency'
    | 'funding_currency'
    | 'leverage_level'
  >,
): { currency: string; amountSql: string } {
  const remaining = '(quantity - filled_quantity)';
  if (order.conditional) return { currency: order.quoted_currency, amountSql: '0' };
  if (order.trading_type !== 'spot') {
    return {
      currency: order.funding_currency,
      amountSql: `${remaining} * price / leverage_level`,
    };
  }
  return order.side === 'buy'
    ? { currency: order.quoted_currency, amountSql: `${remaining} * price` }
    : { currency: order.base_currency, amountSql: remaining };
}

/**
 * Sets what order `id` holds to what its current row requires, moving the difference on its
 * owner's reserved balance. Refuses with not_enough_free_balance when the balance does not
 * cover the increase; the caller's transaction then rolls back.
 */
export async function syncReserve(db: Queryable, order: OrderRow): Promise<void> {
  const { currency, amountSql } = reserveFor(order);
  const { rows } = await db.query<{ old_amount: string; old_currency: string; amount: string }>(
    `WITH before AS (SELECT reserved_amount, reserved_currency FROM orders WHERE id = $1)
     UPDATE orders SET reserved_amount = CASE WHEN status IN ('live', 'partially_filled')
         THEN ${amountSql} ELSE 0 END,
       reserved_currency = $2
     FROM before WHERE orders.id = $1
     RETURNING before.reserved_amount AS old_amount, before.reserved_currency AS old_currency,
       orders.reserved_amount AS amount`,
    [order.id, currency],
  );
  const change = rows[0];
  if (!change) throw new Error(`Order ${order.id} not found while reserving`);
  await adjustReserved(db, order.user_id, change.old_currency, `-${change.old_amount}`);
  await adjustReserved(db, order.user_id, currency, change.amount);
}

async function ensureAccount(db: Queryable, userId: number, currency: string): Promise<void> {
  await db.query(
    `INSERT INTO accounts (user_id, currency, address) VALUES ($1, $2, $3)
     ON CONFLICT (user_id, currency) DO NOTHING`,
    [userId, currency, depositAddress(userId, currency)],
  );
}

/** A stable, made-up deposit address; the sandbox moves no real funds. */
export function depositAddress(userId: number, currency: string): string {
  return `sandbox-${currency.toLowerCase()}-${userId.toString(36)}`;
}

async function adjustReserved(
  db: Queryable,
  userId: number,
  currency: string,
  delta: string,
): Promise<void> {
  await ensureAccount(db, userId, currency);
  const { rows } = await db.query(
    `UPDATE accounts SET reserved_balance = reserved_balance + $3::numeric
     WHERE user_id = $1 AND currency = $2 AND balance >= reserved_balance + $3::numeric
     RETURNING id`,
    [userId, currency, delta],
  );
  if (rows.length === 0) {
    throw new HttpError(422, 'Not enough free balance', { user: ['not_enough_free_balance'] });
  }
}

/** One side of a spot fill: `userId` pays `paid` of one currency and receives `received` of another. */
export async function exchange(
  db: Queryable,
  userId: number,
  payCurrency: string,
  paid: string,
  receiveCurrency: string,
  received: string,
): Promise<void> {
  await ensureAccount(db, userId, receiveCurrency);
  const { rows } = await db.query(
    `UPDATE accounts SET balance = balance - $3::numeric
     WHERE user_id = $1 AND currency = $2 AND balance - $3::numeric >= reserved_balance
     RETURNING id`,
    [userId, payCurrency, paid],
  );
  if (rows.length === 0) {
    throw new HttpError(422, 'Not enough free balance', { user: ['not_enough_free_balance'] });
  }
  await db.query(
    'UPDATE accounts SET balance = balance + $3::numeric WHERE user_id = $1 AND currency = $2',
    [userId, receiveCurrency, received],
  );
}
