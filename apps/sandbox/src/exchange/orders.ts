import type { operationTable } from '@exchange-kit/contract/exchange';
import type {
  zCancelAllOrdersBody,
  zCreateOrderBody,
  zEditOrderBody,
  zOrderTpslUpdate,
} from '@exchange-kit/contract/exchange/schemas';
import { statesWith } from '@exchange-kit/contract/state-tables';
import type * as z from 'zod/mini';
import { NotFound, Refusal } from '../handling/errors.js';
import {
  type CallInput,
  type ExchangeHandlerOf,
  type Handlers,
  later,
  type RequestContext,
  type StoredReadsOf,
} from '../handling/operation.js';
import type { ExchangeState } from '../state/exchange-state.js';
import type { HistoryReads } from '../state/history.js';
import { idNamed } from '../state/ids.js';
import type { Journal, Writable } from '../state/journal.js';
import {
  D,
  isOpen,
  type Order,
  type Product,
  type TrailingStop,
  takesOnly,
} from '../state/records.js';
import { actingUser } from './caller.js';
import { maxDecimalLength } from './decimal-input.js';
import { syncReserve } from './ledger.js';
import { bestOpposite, cancel, matchOrder, trailingTrigger } from './matching.js';
import {
  answerForOrder,
  findOrder,
  type OrderKey,
  orderView,
  orderWithExecutions,
} from './order-view.js';
import { pageFrom } from './paging.js';
import { afterTrading, reachedNow } from './position-exits.js';
import { openQuantity, positionClosedBy } from './positions.js';
import { defaultLeverageLevel } from './trading-accounts.js';

type TradingType = Order['tradingType'];

type OrderCreate = Extract<z.infer<typeof zCreateOrderBody>, { side: unknown }>;
type OrderEdit = Extract<z.infer<typeof zEditOrderBody>, { price?: unknown }>;

const notFound = () => new NotFound('Order not found');
/** The codes the spec gives the order operations' 422s, field by field. */
type OrderCodes = Merged<
  (typeof operationTable)['createOrder' | 'editOrder' | 'updateOrderTpsl']['errorCodes']
>;
type Merged<Union> = {
  [Field in Union extends unknown ? keyof Union : never]: Union extends Record<
    Field,
    readonly (infer Code)[]
  >
    ? Code
    : never;
};

// Typed by the spec's x-error-codes: a code the spec does not list does not compile.
const refuse = <Field extends keyof OrderCodes & string>(field: Field, code: OrderCodes[Field]) =>
  new Refusal(field, code, code);

const positive = (value: string) => !value.startsWith('-') && /[1-9]/.test(value);

export function checkAmount(
  field: 'quantity' | 'price' | 'price_range' | 'trailing_stop_value' | 'take_profit' | 'stop_loss',
  value: string | undefined,
): void {
  if (value === undefined) return;
  if (value.length > maxDecimalLength) throw refuse(field, 'too_long');
  if (!positive(value)) throw refuse(field, 'must_be_positive');
}

export function loadProduct(journal: Journal, productId: number | string): Product {
  const id = idNamed(productId);
  if (id === undefined) throw refuse('product_id', 'not_found');
  const product = journal.exchange.products.get(id);
  if (!product) throw refuse('product_id', 'not_found');
  return product;
}

function minimumQuantity(journal: Journal, product: Product): D {
  return journal.exchange.currencies.get(product.baseCurrency)?.minimumOrderQuantity ?? new D(0);
}

/** A price, and an exit price alike, must be a whole number of the product's ticks. */
export function checkTick(
  product: Product,
  price: string | undefined,
  field: 'price' | 'take_profit' | 'stop_loss' = 'price',
): void {
  if (price !== undefined && !new D(price).mod(product.tickSize).isZero()) {
    throw refuse(field, 'not_a_multiple_of_the_tick_size');
  }
}

/**
 * Why `quantity` of `product` cannot trade, if it cannot: it must reach the smallest order of
 * the base currency and be a whole number of its step, one unit of its last decimal place
 * (`assets_precision`). An order's quantity and a trade's partial close are held to it alike.
 */
export function quantityFault(
  journal: Journal,
  product: Product,
  quantity: D,
): 'less_than_order_size' | 'not_a_multiple_of_the_quantity_step' | undefined {
  if (quantity.lt(minimumQuantity(journal, product))) return 'less_than_order_size';
  const places = journal.exchange.currencies.get(product.baseCurrency)?.assetsPrecision;
  if (places !== undefined && quantity.decimalPlaces() > places) {
    return 'not_a_multiple_of_the_quantity_step';
  }
  return undefined;
}

function checkQuantity(journal: Journal, product: Product, quantity: D): void {
  const fault = quantityFault(journal, product, quantity);
  if (fault) throw refuse('quantity', fault);
}

/** How far a new trailing stop follows the price: `trailing_stop_type` and `_value`, checked. */
function trailingStopOf(
  input: Extract<OrderCreate, { order_type: 'trailing_stop' }>,
): TrailingStop {
  const type = input.trailing_stop_type;
  // Any other value than the spec's is refused by the request's schema before it gets here.
  if (type === undefined) throw refuse('trailing_stop_type', 'required');
  if (input.trailing_stop_value === undefined) throw refuse('trailing_stop_value', 'required');
  checkAmount('trailing_stop_value', input.trailing_stop_value);
  const value = new D(input.trailing_stop_value);
  if (type === 'percentage' && value.gte(100)) {
    throw refuse('trailing_stop_value', 'must_be_less_than_100');
  }
  return { type, value };
}

/**
 * Where a new stop or trailing stop is triggered. A stop that the last traded price has
 * already reached is refused: it would trade at once, which a market order says plainly. A
 * trailing stop starts at its distance from the last traded price, so the product needs one.
 */
function firstTrigger(journal: Journal, order: Order, price: string | undefined): D {
  const last = journal.exchange.lastPrice(order.productId);
  if (order.trailingStop) {
    if (!last) throw refuse('product_id', 'no_last_traded_price');
    const trigger = trailingTrigger(order.side, order.trailingStop, last);
    if (trigger.lte(0)) throw refuse('trailing_stop_value', 'must_be_less_than_the_price');
    return trigger;
  }
  if (price === undefined) throw refuse('price', 'required');
  const trigger = new D(price);
  const reached = order.side === 'buy' ? last?.gte(trigger) : last?.lte(trigger);
  if (reached) throw refuse('price', 'would_trigger_immediately');
  return trigger;
}

export function tradingTypeFor(product: Product, requested: TradingType | undefined): TradingType {
  const tradingType = requested ?? (product.perpetual ? 'perpetual' : 'spot');
  // Keyed by every trading type of the spec: a new one does not compile until it is decided here.
  const enabled: Record<TradingType, boolean> = {
    spot: !product.perpetual,
    margin: product.marginEnabled,
    cfd: product.cfdEnabled,
    perpetual: product.perpetualEnabled,
  };
  if (!enabled[tradingType]) throw refuse('trading_type', 'not_enabled_for_product');
  return tradingType;
}

/** The currency a margin order's margin is held in: the quote currency unless it names the base one. */
export function fundingCurrencyFor(product: Product, requested: string | undefined): string {
  const funding = requested ?? product.quotedCurrency;
  if (![product.quotedCurrency, product.baseCurrency].includes(funding)) {
    throw refuse('funding_currency', 'not_a_currency_of_the_product');
  }
  return funding;
}

/** Places an order for `userId`: checks, holds the funds, matches, and rests what is left. */
export function placeOrder(
  journal: Journal,
  userId: number,
  input: OrderCreate,
  now: number,
): Order {
  const { exchange: state } = journal;
  const product = loadProduct(journal, input.product_id);
  if (product.disabled) throw refuse('product_id', 'product_disabled');
  checkAmount('quantity', input.quantity);
  const waits = input.order_type === 'stop' || input.order_type === 'trailing_stop';
  const limited = !takesOnly(input.order_type);
  if (limited && input.price === undefined) throw refuse('price', 'required');
  checkAmount('price', input.price);
  // A market order's price, if sent, is not used; a stop's is the price it triggers at.
  if (limited || input.order_type === 'stop') checkTick(product, input.price);
  const trailingStop = input.order_type === 'trailing_stop' ? trailingStopOf(input) : null;
  // Only a market_with_range order carries a range: the spec refuses it on any other.
  const priceRange = input.order_type === 'market_with_range' ? input.price_range : undefined;
  const ranged = priceRange !== undefined;
  checkAmount('price_range', priceRange);
  const clientOrderId = input.client_order_id;
  if (clientOrderId !== undefined && Buffer.byteLength(clientOrderId) > 36) {
    throw refuse('client_order_id', 'longer_than_36_bytes');
  }
  const tradingType = tradingTypeFor(product, input.trading_type);
  // A leverage asked of a spot order was meant for a margin one: traded on spot, the caller
  // would hold what it meant to borrow against. Only 1, the spot leverage, goes with spot.
  if (tradingType === 'spot' && input.leverage_level !== undefined && input.leverage_level > 1) {
    throw refuse('leverage_level', 'only_with_margin_trading');
  }
  // Its bounds are the request schema's; unnamed, the trading account's setting.
  const leverage =
    tradingType === 'spot'
      ? 1
      : (input.leverage_level ?? defaultLeverageLevel(state, userId, product.id));
  const funding = fundingCurrencyFor(product, input.funding_currency);
  const quantity = new D(input.quantity);
  checkQuantity(journal, product, quantity);
  if (clientOrderId !== undefined && state.orderByClientId(userId, clientOrderId)) {
    throw refuse('client_order_id', 'already_used');
  }
  const order: Writable<Order> = {
    id: state.next.order++,
    userId,
    productId: product.id,
    clientOrderId: clientOrderId ?? null,
    orderType: input.order_type,
    side: input.side,
    tradingType,
    quantity,
    filledQuantity: new D(0),
    price: new D(input.price ?? 0),
    filledValue: new D(0),
    feeCharged: new D(0),
    status: 'live',
    leverageLevel: leverage,
    fundingCurrency: funding,
    takeProfit: null,
    stopLoss: null,
    conditional: waits,
    tradeId: null,
    unwoundTradeId: null,
    trailingStop,
    reservedAmount: new D(0),
    reservedCurrency: product.quotedCurrency,
    sequence: state.next.orderSequence++,
    createdAt: now,
    updatedAt: now,
  };
  if (input.order_type === 'limit_post_only' && bestOpposite(journal, order)) {
    throw refuse('price', 'would_take_liquidity');
  }
  if (ranged) {
    // The range is counted from the best price on offer when the order arrives; the order's
    // price is the far end of it, beyond which it takes nothing.
    const best = bestOpposite(journal, { ...order, orderType: 'market' });
    if (!best) throw refuse('quantity', 'no_liquidity');
    const range = new D(priceRange);
    order.price = input.side === 'buy' ? best.price.plus(range) : D.max(0, best.price.minus(range));
  }
  if (waits) order.price = firstTrigger(journal, order, input.price);
  journal.addOrder(order);
  // A market order holds nothing up front: each fill checks the funds it takes.
  if (limited || waits) syncReserve(journal, order);
  if (waits) return order;
  matchOrder(journal, order, now);
  if (takesOnly(input.order_type) && order.filledQuantity.isZero()) {
    throw refuse('quantity', 'no_liquidity');
  }
  afterTrading(journal, product.id, now);
  return order;
}

function orderKey(context: {
  path: { order_id: string | number } | { client_order_id: string };
}): OrderKey {
  const { path } = context;
  if ('client_order_id' in path) return { clientOrderId: path.client_order_id };
  return { id: String(path.order_id) };
}

/** The caller's order named by the path, provided it is still open; else 404. */
function openOrder(context: Parameters<typeof orderKey>[0] & RequestContext<CallInput>): Order {
  const { exchange: state } = context.journal;
  const order = findOrder(state, actingUser(context.caller), orderKey(context));
  if (!order || !isOpen(order)) throw notFound();
  return order;
}

const createOrder: ExchangeHandlerOf<'createOrder'> = (context) => {
  const body = context.body as z.infer<typeof zCreateOrderBody>;
  const input = 'order' in body ? body.order : body;
  const { journal } = context;
  const order = placeOrder(journal, actingUser(context.caller), input, context.now);
  return { status: 200, body: orderView(journal.exchange, order) };
};

/** An order as a read answers it: with its fills when the caller asked for its details. */
const viewOf = (
  state: ExchangeState,
  history: HistoryReads,
  order: Order,
  query: { with_details?: 0 | 1 },
) =>
  query.with_details === 1
    ? orderWithExecutions(state, order)(history)
    : Promise.resolve(orderView(state, order));

/** Every order is history once closed: the list is read from it, paged there. */
const listOrders: ExchangeHandlerOf<'listOrders'> = ({ journal, caller, query }) => {
  const { limit, page } = query;
  // A filter naming no product is a mistake of the caller's, not an empty list.
  if (query.product_id !== undefined) loadProduct(journal, query.product_id);
  const userId = actingUser(caller);
  const filter = {
    productId: query.product_id === undefined ? undefined : Number(query.product_id),
    // Asked for the live orders, clients mean those that rest in the book and can be
    // cancelled: a partly filled one is among them (ccxt's open orders ask for status=live).
    statuses:
      query.status === 'live'
        ? statesWith('order', 'open')
        : query.status === undefined
          ? undefined
          : [query.status],
    tradingType: query.trading_type,
    fundingCurrency: query.funding_currency,
  };
  return later((history, state) =>
    // The orders and their fills of one moment: each lists the fills its filled_quantity counts.
    history.together(async (now) => {
      const found = await now.orders(userId, filter, (page - 1) * limit, limit);
      const models = await Promise.all(found.rows.map((order) => viewOf(state, now, order, query)));
      return { status: 200, body: pageFrom(found.total, models, limit, page) };
    }),
  );
};

const getOrder: ExchangeHandlerOf<'getOrder'> = (context) => {
  const { query } = context;
  return answerForOrder(
    context.journal.exchange,
    actingUser(context.caller),
    orderKey(context),
    (order, state) => {
      if (query.with_details !== 1) return { status: 200, body: orderView(state, order) };
      const withFills = orderWithExecutions(state, order);
      return later(async (history) => ({ status: 200, body: await withFills(history) }));
    },
  );
};

/** The client order id a create carries, as sent: what may name an order already placed. */
export function clientOrderIdIn(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  const order = 'order' in body ? (body as { order: unknown }).order : body;
  return (order as { client_order_id?: unknown } | null)?.client_order_id;
}

/** A create names a client order id, which a closed order held in the store alone may have. */
export const orderStoredReads: StoredReadsOf = {
  createOrder: (body, caller) => {
    const clientOrderId = clientOrderIdIn(body);
    if (typeof clientOrderId !== 'string' || !('userId' in caller)) return {};
    return { clientOrders: { userId: caller.userId, clientOrderIds: [clientOrderId] } };
  },
};

/** Edits price and/or quantity; a new price or a larger size loses the time priority. */
const editOrder: ExchangeHandlerOf<'editOrder'> = (context) => {
  const body = context.body as z.infer<typeof zEditOrderBody>;
  const edit: OrderEdit = 'order' in body ? body.order : body;
  const { journal } = context;
  const order = openOrder(context);
  if (order.status === 'partially_filled') {
    throw refuse('order', 'Can not update partially filled order');
  }
  checkAmount('price', edit.price);
  checkAmount('quantity', edit.quantity);
  if (edit.price !== undefined && order.trailingStop) throw refuse('price', 'follows_the_market');
  const price = edit.price === undefined ? order.price : new D(edit.price);
  const quantity = edit.quantity === undefined ? order.quantity : new D(edit.quantity);
  const product = loadProduct(journal, order.productId);
  checkTick(product, edit.price);
  if (edit.quantity !== undefined) checkQuantity(journal, product, quantity);
  else if (quantity.lt(minimumQuantity(journal, product))) {
    throw refuse('quantity', 'less_than_order_size');
  }
  const position = positionClosedBy(journal, order);
  if (position && quantity.minus(order.filledQuantity).gt(openQuantity(position))) {
    throw refuse('quantity', 'more_than_the_open_position');
  }
  // A waiting order moved to a price already reached would go off at once, as a new one would.
  if (
    order.conditional &&
    !price.eq(order.price) &&
    reachedNow(journal.exchange, { ...order, price })
  ) {
    throw refuse('price', 'would_trigger_immediately');
  }
  const edited = journal.touchOrder(order);
  if (!price.eq(order.price) || quantity.gt(order.quantity)) {
    edited.sequence = journal.exchange.next.orderSequence++;
  }
  edited.price = price;
  edited.quantity = quantity;
  edited.updatedAt = context.now;
  journal.reposition(order);
  syncReserve(journal, order);
  if (!order.conditional) {
    matchOrder(journal, order, context.now);
    afterTrading(journal, order.productId, context.now);
  }
  return { status: 200, body: orderView(journal.exchange, order) };
};

const updateOrderTpsl: ExchangeHandlerOf<'updateOrderTpsl'> = (context) => {
  const body = context.body as z.infer<typeof zOrderTpslUpdate>;
  const { journal } = context;
  const order = openOrder(context);
  // Bounded as the order's own price is: an exit off the tick could never trade.
  const product = loadProduct(journal, order.productId);
  checkAmount('take_profit', body.take_profit);
  checkTick(product, body.take_profit, 'take_profit');
  checkAmount('stop_loss', body.stop_loss);
  checkTick(product, body.stop_loss, 'stop_loss');
  // An exit's own exits could never wait on anything: it closes the trade they would close.
  const field = body.take_profit === undefined ? 'stop_loss' : 'take_profit';
  if (order.unwoundTradeId !== null && body[field] !== undefined) {
    throw refuse(field, 'closes_a_trade');
  }
  const edited = journal.touchOrder(order);
  if (body.take_profit !== undefined) edited.takeProfit = new D(body.take_profit);
  if (body.stop_loss !== undefined) edited.stopLoss = new D(body.stop_loss);
  edited.updatedAt = context.now;
  return { status: 200, body: orderView(journal.exchange, order, true) };
};

const cancelOrder: ExchangeHandlerOf<'cancelOrder'> = (context) => {
  const { journal } = context;
  const order = openOrder(context);
  // The margin held at the moment of cancelling, as the response reports it.
  const held = order.reservedAmount;
  cancel(journal, order, context.now);
  return {
    status: 200,
    body: orderView(journal.exchange, { ...order, reservedAmount: held }, true),
  };
};

/**
 * Cancels every open order matching all given filters. A take profit or stop loss waiting on
 * a position is left alone; a user's own stop or trailing stop is an order like any other.
 */
const cancelAllOrders: ExchangeHandlerOf<'cancelAllOrders'> = (context) => {
  const filters = (context.body ?? {}) as z.infer<typeof zCancelAllOrdersBody>;
  const { journal } = context;
  // A filter naming no product is a mistake, not a request to cancel nothing.
  if (filters.product_id !== undefined) loadProduct(journal, filters.product_id);
  const chosen = journal.exchange.ordersByUser
    .of(actingUser(context.caller))
    .filter(
      (order) =>
        isOpen(order) &&
        !(order.conditional && order.unwoundTradeId !== null) &&
        (filters.product_id === undefined || String(order.productId) === filters.product_id) &&
        (filters.trading_type === undefined || order.tradingType === filters.trading_type) &&
        (filters.side === undefined || order.side === filters.side),
    )
    .sort((a, b) => a.id - b.id);
  // Out of their books together, once each is touched (so that an undo puts it back): taken
  // out one at a time, each moved the deeper orders behind it.
  for (const order of chosen) journal.touchOrder(order);
  journal.exchange.unrestAll(chosen);
  for (const order of chosen) cancel(journal, order, context.now);
  return {
    status: 200,
    body: {
      models: chosen.map((order) => ({ id: order.id, client_order_id: order.clientOrderId })),
    },
  };
};

export const orderHandlers = {
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
} satisfies Handlers;
