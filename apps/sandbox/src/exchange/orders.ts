import type {
  zCancelAllOrdersBody,
  zCreateOrderBody,
  zEditOrderBody,
  zOrderTpslUpdate,
} from '@exchange-kit/exchange-client/schemas';
import type * as z from 'zod/mini';
import { type Handler, type Handlers, HttpError, type RequestContext } from '../http/types.js';
import type { Queryable } from '../store/database.js';
import { actingUser } from './caller.js';
import { syncReserve } from './ledger.js';
import { matchOrder } from './matching.js';
import {
  findOrder,
  type OrderKey,
  type OrderRow,
  openStatuses,
  orderColumns,
  orderFrom,
  orderView,
  reloadOrder,
} from './order-view.js';

type OrderCreate = Extract<z.infer<typeof zCreateOrderBody>, { side: unknown }>;
type OrderEdit = Extract<z.infer<typeof zEditOrderBody>, { price?: unknown }>;

const notFound = () => new HttpError(404, 'Order not found');
const refuse = (field: string, code: string) => new HttpError(422, code, { [field]: [code] });

const positive = (value: string) => !value.startsWith('-') && /[1-9]/.test(value);
// Long enough for any real price or quantity; beyond it a value is a mistake, not an order.
const maxDecimalLength = 32;
const maxLeverage = 100;

function checkAmount(field: string, value: string | undefined): void {
  if (value === undefined) return;
  if (value.length > maxDecimalLength) throw refuse(field, 'too_long');
  if (!positive(value)) throw refuse(field, 'must_be_positive');
}

interface ProductRow {
  id: number;
  base_currency: string;
  quoted_currency: string;
  disabled: boolean;
  margin_enabled: boolean;
  cfd_enabled: boolean;
  perpetual_enabled: boolean;
  perpetual: boolean;
  minimum_order_quantity: string;
}

async function loadProduct(db: Queryable, productId: number | string): Promise<ProductRow> {
  const id = String(productId);
  if (!/^[0-9]{1,15}$/.test(id)) throw refuse('product_id', 'not_found');
  const { rows } = await db.query<ProductRow>(
    `SELECT p.*, c.minimum_order_quantity FROM products p
     JOIN currencies c ON c.code = p.base_currency WHERE p.id = $1::bigint`,
    [id],
  );
  const product = rows[0];
  if (!product) throw refuse('product_id', 'not_found');
  return product;
}

function tradingTypeFor(product: ProductRow, requested: string | undefined): string {
  const tradingType = requested ?? (product.perpetual ? 'perpetual' : 'spot');
  const enabled: Record<string, boolean> = {
    spot: !product.perpetual,
    margin: product.margin_enabled,
    cfd: product.cfd_enabled,
    perpetual: product.perpetual_enabled,
  };
  if (!enabled[tradingType]) throw refuse('trading_type', 'not_enabled_for_product');
  return tradingType;
}

/** Places an order for `userId`: checks, holds the funds, matches, and rests what is left. */
export async function placeOrder(
  db: Queryable,
  userId: number,
  input: OrderCreate,
  now: number,
): Promise<OrderRow> {
  const product = await loadProduct(db, input.product_id);
  if (product.disabled) throw refuse('product_id', 'product_disabled');
  const supported = ['limit', 'limit_post_only', 'market'];
  if (!supported.includes(input.order_type)) throw refuse('order_type', 'not_supported');
  checkAmount('quantity', input.quantity);
  const limited = input.order_type !== 'market';
  if (limited && input.price === undefined) throw refuse('price', 'required');
  checkAmount('price', input.price);
  if (input.client_order_id !== undefined && Buffer.byteLength(input.client_order_id) > 36) {
    throw refuse('client_order_id', 'longer_than_36_bytes');
  }
  const tradingType = tradingTypeFor(product, input.trading_type);
  const leverage = tradingType === 'spot' ? 1 : (input.leverage_level ?? 1);
  if (leverage > maxLeverage) throw refuse('leverage_level', `must_be_at_most_${maxLeverage}`);
  const funding = input.funding_currency ?? product.quoted_currency;
  if (![product.quoted_currency, product.base_currency].includes(funding)) {
    throw refuse('funding_currency', 'not_a_currency_of_the_product');
  }
  const { rows: small } = await db.query('SELECT 1 WHERE $1::numeric < $2::numeric', [
    input.quantity,
    product.minimum_order_quantity,
  ]);
  if (small.length > 0) throw refuse('quantity', 'less_than_order_size');
  if (input.client_order_id !== undefined) {
    const { rows } = await db.query(
      'SELECT 1 FROM orders WHERE user_id = $1 AND client_order_id = $2',
      [userId, input.client_order_id],
    );
    if (rows.length > 0) throw refuse('client_order_id', 'already_used');
  }
  if (input.order_type === 'limit_post_only' && (await wouldTake(db, product.id, input))) {
    throw refuse('price', 'would_take_liquidity');
  }
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO orders (user_id, product_id, client_order_id, order_type, side, trading_type,
       quantity, price, status, leverage_level, funding_currency, reserved_currency,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'live', $9, $10, $11, $12, $12) RETURNING id`,
    [
      userId,
      product.id,
      input.client_order_id ?? null,
      input.order_type,
      input.side,
      tradingType,
      input.quantity,
      input.price ?? '0',
      leverage,
      funding,
      product.quoted_currency,
      now,
    ],
  );
  const id = rows[0]?.id;
  if (id === undefined) throw new Error('Order insert returned no id');
  // A market order holds nothing up front: each fill checks the funds it takes.
  if (limited) await syncReserve(db, await reloadOrder(db, id));
  await matchOrder(db, id, now);
  const placed = await reloadOrder(db, id);
  if (input.order_type === 'market' && placed.status === 'cancelled') {
    throw refuse('quantity', placed.filled_quantity === '0' ? 'no_liquidity' : 'not_filled');
  }
  return placed;
}

async function wouldTake(db: Queryable, productId: number, input: OrderCreate): Promise<boolean> {
  const buying = input.side === 'buy';
  const { rows } = await db.query(
    `SELECT 1 FROM orders WHERE product_id = $1 AND side = $2
       AND status IN ('live', 'partially_filled') AND NOT conditional
       AND price ${buying ? '<=' : '>='} $3::numeric LIMIT 1`,
    [productId, buying ? 'sell' : 'buy', input.price],
  );
  return rows.length > 0;
}

function orderKey(context: RequestContext): OrderKey {
  const clientOrderId = context.path.client_order_id;
  if (clientOrderId !== undefined) return { clientOrderId };
  return { id: context.path.order_id ?? '' };
}

/** The caller's order named by the path, locked, provided it is still open; else 404. */
async function openOrder(context: RequestContext): Promise<OrderRow> {
  const order = await findOrder(context.db, actingUser(context.caller), orderKey(context), true);
  if (!order || !(openStatuses as readonly string[]).includes(order.status)) throw notFound();
  return order;
}

const createOrder: Handler = async (context) => {
  const body = context.body as z.infer<typeof zCreateOrderBody>;
  const input = 'order' in body ? body.order : body;
  const order = await placeOrder(context.db, actingUser(context.caller), input, context.now);
  return { status: 200, body: orderView(order) };
};

const listOrders: Handler = async ({ db, caller, query }) => {
  const limit = Number(query.limit ?? 20);
  const page = Number(query.page ?? 1);
  const filters = ['o.user_id = $1'];
  const params: unknown[] = [actingUser(caller)];
  const filter = (column: string, value: string | undefined, cast = '') => {
    if (value === undefined) return;
    params.push(value);
    filters.push(`${column} = $${params.length}${cast}`);
  };
  if (query.product_id !== undefined && !/^[0-9]{1,15}$/.test(query.product_id)) {
    return { status: 200, body: { models: [], current_page: page, total_pages: 0 } };
  }
  filter('o.product_id', query.product_id, '::bigint');
  filter('o.status', query.status);
  filter('o.trading_type', query.trading_type);
  filter('o.funding_currency', query.funding_currency);
  const where = filters.join(' AND ');
  const { rows: counted } = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${orderFrom} WHERE ${where}`,
    params,
  );
  const total = counted[0]?.total ?? 0;
  const { rows } = await db.query<OrderRow>(
    `SELECT ${orderColumns} FROM ${orderFrom} WHERE ${where}
     ORDER BY o.created_at DESC, o.id DESC LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    params,
  );
  return {
    status: 200,
    body: {
      models: rows.map((row) => orderView(row)),
      current_page: page,
      total_pages: Math.ceil(total / limit),
    },
  };
};

const getOrder: Handler = async (context) => {
  const order = await findOrder(context.db, actingUser(context.caller), orderKey(context));
  if (!order) throw notFound();
  return { status: 200, body: orderView(order) };
};

/** Edits price and/or quantity; a new price or a larger size loses the time priority. */
const editOrder: Handler = async (context) => {
  const body = context.body as z.infer<typeof zEditOrderBody>;
  const edit: OrderEdit = 'order' in body ? body.order : body;
  const order = await openOrder(context);
  if (order.status === 'partially_filled') {
    throw refuse('order', 'Can not update partially filled order');
  }
  checkAmount('price', edit.price);
  checkAmount('quantity', edit.quantity);
  const { rows: small } = await context.db.query(
    `SELECT 1 FROM currencies WHERE code = $1 AND $2::numeric < minimum_order_quantity`,
    [order.base_currency, edit.quantity ?? order.quantity],
  );
  if (small.length > 0) throw refuse('quantity', 'less_than_order_size');
  await context.db.query(
    `UPDATE orders SET
       sequence = CASE WHEN price <> $2::numeric OR quantity < $3::numeric
         THEN nextval('orders_sequence_seq') ELSE sequence END,
       price = $2::numeric, quantity = $3::numeric, updated_at = $4
     WHERE id = $1`,
    [order.id, edit.price ?? order.price, edit.quantity ?? order.quantity, context.now],
  );
  await syncReserve(context.db, await reloadOrder(context.db, order.id));
  if (!order.conditional) await matchOrder(context.db, order.id, context.now);
  return { status: 200, body: orderView(await reloadOrder(context.db, order.id)) };
};

const updateOrderTpsl: Handler = async (context) => {
  const body = context.body as z.infer<typeof zOrderTpslUpdate>;
  const order = await openOrder(context);
  checkAmount('take_profit', body.take_profit);
  checkAmount('stop_loss', body.stop_loss);
  await context.db.query(
    `UPDATE orders SET take_profit = coalesce($2::numeric, take_profit),
       stop_loss = coalesce($3::numeric, stop_loss), updated_at = $4
     WHERE id = $1`,
    [order.id, body.take_profit ?? null, body.stop_loss ?? null, context.now],
  );
  return { status: 200, body: orderView(await reloadOrder(context.db, order.id), true) };
};

async function cancel(db: Queryable, order: OrderRow, now: number): Promise<OrderRow> {
  await db.query(`UPDATE orders SET status = 'cancelled', updated_at = $2 WHERE id = $1`, [
    order.id,
    now,
  ]);
  const cancelled = await reloadOrder(db, order.id);
  await syncReserve(db, cancelled);
  return reloadOrder(db, order.id);
}

const cancelOrder: Handler = async (context) => {
  const order = await openOrder(context);
  const cancelled = await cancel(context.db, order, context.now);
  // The margin held at the moment of cancelling, as the response reports it.
  return {
    status: 200,
    body: orderView({ ...cancelled, reserved_amount: order.reserved_amount }, true),
  };
};

/** Cancels every open order matching all given filters; conditional orders are left alone. */
const cancelAllOrders: Handler = async (context) => {
  const filters = (context.body ?? {}) as z.infer<typeof zCancelAllOrdersBody>;
  const conditions = [
    'o.user_id = $1',
    `o.status IN ('live', 'partially_filled')`,
    'NOT o.conditional',
  ];
  const params: unknown[] = [actingUser(context.caller)];
  if (filters.product_id !== undefined) {
    if (!/^[0-9]{1,15}$/.test(filters.product_id)) return { status: 200, body: { models: [] } };
    params.push(filters.product_id);
    conditions.push(`o.product_id = $${params.length}::bigint`);
  }
  for (const column of ['trading_type', 'side'] as const) {
    const value = filters[column];
    if (value === undefined) continue;
    params.push(value);
    conditions.push(`o.${column} = $${params.length}`);
  }
  const { rows } = await context.db.query<OrderRow>(
    `SELECT ${orderColumns} FROM ${orderFrom} WHERE ${conditions.join(' AND ')}
     ORDER BY o.id FOR UPDATE OF o`,
    params,
  );
  const models = [];
  for (const order of rows) {
    await cancel(context.db, order, context.now);
    models.push({ id: order.id, client_order_id: order.client_order_id });
  }
  return { status: 200, body: { models } };
};

export const orderHandlers: Handlers = {
  createOrder,
  listOrders,
  getOrder,
  getOrderByClientId: getOrder,
  editOrder,
  editOrderByClientId: editOrder,
  updateOrderTpsl,
  updateOrderTpslByClientId: updateOrderTpsl,
  cancelOrder,
  cancelOrderByClientId: cancelOrder,
  cancelAllOrders,
};
