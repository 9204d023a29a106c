import { toDecimalString } from '@exchange-kit/core';
import type { Queryable } from '../store/database.js';

/** An order as stored, with the product fields its representation needs. */
export interface OrderRow {
  id: number;
  user_id: number;
  product_id: number;
  client_order_id: string | null;
  order_type: string;
  side: 'buy' | 'sell';
  trading_type: string;
  quantity: string;
  filled_quantity: string;
  price: string;
  filled_value: string;
  average_price: string;
  status: 'live' | 'partially_filled' | 'filled' | 'cancelled';
  leverage_level: number;
  funding_currency: string;
  take_profit: string | null;
  stop_loss: string | null;
  conditional: boolean;
  trade_id: number | null;
  reserved_amount: string;
  reserved_currency: string;
  created_at: number;
  updated_at: number;
  product_code: string;
  base_currency: string;
  quoted_currency: string;
}

/** Orders that still rest in the book (or wait, for conditional ones) and can be cancelled. */
export const openStatuses = ['live', 'partially_filled'] as const;

// The average is cut, not rounded, to 8 places so a buyer's average never shows above what
// was paid; filled_value itself stays exact.
export const orderColumns = `o.*, p.code AS product_code, p.base_currency, p.quoted_currency,
  CASE WHEN o.filled_quantity > 0 THEN trunc(o.filled_value / o.filled_quantity, 8) ELSE 0 END
    AS average_price`;
export const orderFrom = 'orders o JOIN products p ON p.id = o.product_id';

/** Where an order is named: `/orders/{order_id}` or `/orders/client:{client_order_id}`. */
export type OrderKey = { id: string } | { clientOrderId: string };

/** Loads one of `userId`'s orders; with `lock`, holds its row until the transaction ends. */
export async function findOrder(
  db: Queryable,
  userId: number,
  key: OrderKey,
  lock = false,
): Promise<OrderRow | undefined> {
  const byId = 'id' in key;
  if (byId && !/^[0-9]{1,15}$/.test(key.id)) return undefined;
  const { rows } = await db.query<OrderRow>(
    `SELECT ${orderColumns} FROM ${orderFrom}
     WHERE o.user_id = $1 AND ${byId ? 'o.id = $2::bigint' : 'o.client_order_id = $2'}
     ${lock ? 'FOR UPDATE OF o' : ''}`,
    [userId, byId ? key.id : key.clientOrderId],
  );
  return rows[0];
}

export async function reloadOrder(db: Queryable, id: number): Promise<OrderRow> {
  const { rows } = await db.query<OrderRow>(
    `SELECT ${orderColumns} FROM ${orderFrom} WHERE o.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) throw new Error(`Order ${id} vanished inside its own transaction`);
  return row;
}

const decimal = (value: string) => toDecimalString(value, 'stored decimal');
const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * The Order of the spec. `withMargin` adds margin_used, margin_interest and
 * unwound_trade_leverage_level, which the update_tpsl and cancel responses carry.
 */
export function orderView(order: OrderRow, withMargin = false): Record<string, unknown> {
  const spot = order.trading_type === 'spot';
  const view: Record<string, unknown> = {
    id: order.id,
    client_order_id: order.client_order_id,
    order_type: order.order_type,
    quantity: decimal(order.quantity),
    disc_quantity: '0',
    iceberg_total_quantity: '0',
    side: order.side,
    filled_quantity: decimal(order.filled_quantity),
    price: decimal(order.price),
    average_price: decimal(order.average_price),
    created_at: seconds(order.created_at),
    updated_at: seconds(order.updated_at),
    status: order.status,
    leverage_level: order.leverage_level,
    source_exchange: 0,
    product_id: order.product_id,
    product_code: order.product_code,
    currency_pair_code: `${order.base_currency}${order.quoted_currency}`,
    funding_currency: order.funding_currency,
    crypto_account_id: null,
    margin_type: spot ? null : 'cross',
    take_profit: order.take_profit === null ? null : decimal(order.take_profit),
    stop_loss: order.stop_loss === null ? null : decimal(order.stop_loss),
    trading_type: order.trading_type,
    target: spot ? 'spot' : 'open',
    order_fee: '0',
    source_action: order.conditional ? 'netout_open' : 'manual',
    unwound_trade_id: null,
    trade_id: order.trade_id,
  };
  if (withMargin) {
    view.margin_used = spot ? '0' : decimal(order.reserved_amount);
    view.margin_interest = '0';
    view.unwound_trade_leverage_level = null;
  }
  return view;
}
