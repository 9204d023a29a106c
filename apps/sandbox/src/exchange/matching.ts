import type { Queryable } from '../store/database.js';
import { exchange, syncReserve } from './ledger.js';
import { type OrderRow, orderColumns, orderFrom, reloadOrder } from './order-view.js';

interface Fill {
  quantity: string;
  price: string;
}

/**
 * Matches `takerId` against the opposite side of its product's book by price-time priority:
 * best price first, oldest order first at one price, always at the resting order's price.
 * A limit order stops at its price and rests with what is left; a market order takes what
 * the book offers and its remainder is cancelled.
 */
export async function matchOrder(db: Queryable, takerId: number, now: number): Promise<void> {
  for (;;) {
    const taker = await reloadOrder(db, takerId);
    if (taker.status !== 'live' && taker.status !== 'partially_filled') return;
    const maker = await bestOpposite(db, taker);
    if (!maker) break;
    const fill = await fillSize(db, taker, maker);
    const settled = await settle(db, taker, maker, fill, now);
    if (!settled) break;
  }
  const taker = await reloadOrder(db, takerId);
  if (
    taker.order_type === 'market' &&
    (taker.status === 'live' || taker.status === 'partially_filled')
  ) {
    await db.query(
      `UPDATE orders SET status = CASE WHEN filled_quantity > 0 THEN 'filled' ELSE 'cancelled' END,
         quantity = CASE WHEN filled_quantity > 0 THEN filled_quantity ELSE quantity END,
         updated_at = $2
       WHERE id = $1`,
      [takerId, now],
    );
    await syncReserve(db, await reloadOrder(db, takerId));
  }
}

async function bestOpposite(db: Queryable, taker: OrderRow): Promise<OrderRow | undefined> {
  const buying = taker.side === 'buy';
  const limited = taker.order_type !== 'market';
  const { rows } = await db.query<OrderRow>(
    `SELECT ${orderColumns} FROM ${orderFrom}
     WHERE o.product_id = $1 AND o.side = $2 AND o.status IN ('live', 'partially_filled')
       AND NOT o.conditional AND o.id <> $3
       ${limited ? `AND o.price ${buying ? '<=' : '>='} $4::numeric` : ''}
     ORDER BY o.price ${buying ? 'ASC' : 'DESC'}, o.sequence ASC
     LIMIT 1
     FOR UPDATE OF o`,
    [taker.product_id, buying ? 'sell' : 'buy', taker.id, ...(limited ? [taker.price] : [])],
  );
  return rows[0];
}

async function fillSize(db: Queryable, taker: OrderRow, maker: OrderRow): Promise<Fill> {
  const { rows } = await db.query<Fill>(
    `SELECT least($1::numeric - $2::numeric, $3::numeric - $4::numeric)::text AS quantity,
       $5::numeric::text AS price`,
    [taker.quantity, taker.filled_quantity, maker.quantity, maker.filled_quantity, maker.price],
  );
  const fill = rows[0];
  if (!fill) throw new Error('No fill size');
  return fill;
}

/**
 * Books one fill: both orders advance, their holds shrink, a spot fill swaps the currencies
 * between buyer and seller, and an order that completes with a take profit or stop loss
 * opens its conditional orders. Returns false when a market taker cannot pay for the fill.
 */
async function settle(
  db: Queryable,
  taker: OrderRow,
  maker: OrderRow,
  fill: Fill,
  now: number,
): Promise<boolean> {
  const [buyer, seller] = taker.side === 'buy' ? [taker, maker] : [maker, taker];
  const cost = await db.query<{ value: string }>(
    'SELECT ($1::numeric * $2::numeric)::text AS value',
    [fill.quantity, fill.price],
  );
  const value = cost.rows[0]?.value ?? '0';
  if (taker.order_type === 'market' && taker.trading_type === 'spot') {
    const [currency, needed] =
      taker.side === 'buy' ? [taker.quoted_currency, value] : [taker.base_currency, fill.quantity];
    const { rows } = await db.query(
      `SELECT 1 FROM accounts WHERE user_id = $1 AND currency = $2
         AND balance - reserved_balance >= $3::numeric`,
      [taker.user_id, currency, needed],
    );
    if (rows.length === 0) return false;
  }
  const { rows: inserted } = await db.query<{ id: number }>(
    `INSERT INTO fills (product_id, taker_order_id, maker_order_id, taker_side, price, quantity, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [taker.product_id, taker.id, maker.id, taker.side, fill.price, fill.quantity, now],
  );
  const fillId = inserted[0]?.id ?? null;
  for (const order of [taker, maker]) {
    await db.query(
      `UPDATE orders SET filled_quantity = filled_quantity + $2::numeric,
         filled_value = filled_value + $3::numeric,
         status = CASE WHEN filled_quantity + $2::numeric >= quantity THEN 'filled'
           ELSE 'partially_filled' END,
         updated_at = $4
       WHERE id = $1`,
      [order.id, fill.quantity, value, now],
    );
    await syncReserve(db, await reloadOrder(db, order.id));
  }
  // A spot side pays and receives in full; two spot sides thus swap currencies. Margin
  // positions are not modelled, so a margin side only gives its hold back (done above).
  if (buyer.trading_type === 'spot') {
    await exchange(
      db,
      buyer.user_id,
      buyer.quoted_currency,
      value,
      buyer.base_currency,
      fill.quantity,
    );
  }
  if (seller.trading_type === 'spot') {
    await exchange(
      db,
      seller.user_id,
      seller.base_currency,
      fill.quantity,
      seller.quoted_currency,
      value,
    );
  }
  for (const order of [taker, maker]) await openConditionalOrders(db, order.id, fillId, now);
  return true;
}

/**
 * A filled order that carries a take profit or a stop loss opens a position; each becomes a
 * conditional order on it (opposite side, same size) that waits for its trigger.
 */
async function openConditionalOrders(
  db: Queryable,
  orderId: number,
  tradeId: number | null,
  now: number,
): Promise<void> {
  const order = await reloadOrder(db, orderId);
  if (order.status !== 'filled' || order.conditional) return;
  const triggers = [
    { price: order.take_profit, type: 'limit' },
    { price: order.stop_loss, type: 'stop' },
  ];
  for (const trigger of triggers) {
    if (trigger.price === null) continue;
    await db.query(
      `INSERT INTO orders (user_id, product_id, order_type, side, trading_type, quantity, price,
         status, leverage_level, funding_currency, conditional, trade_id, reserved_currency,
         created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'live', $8, $9, true, $10, $11, $12, $12)`,
      [
        order.user_id,
        order.product_id,
        trigger.type,
        order.side === 'buy' ? 'sell' : 'buy',
        order.trading_type,
        order.quantity,
        trigger.price,
        order.leverage_level,
        order.funding_currency,
        tradeId,
        order.quoted_currency,
        now,
      ],
    );
  }
}
