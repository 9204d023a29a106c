import type { operationTable } from '@exchange-kit/contract/exchange';
import type {
  zAdjustTradeMarginBody,
  zCloseAllTradesBody,
  zCloseTradeBody,
  zUpdateTradeBody,
} from '@exchange-kit/contract/exchange/schemas';
import type * as z from 'zod/mini';
import { NotFound, Refusal } from '../handling/errors.js';
import {
  type ExchangeHandlerOf,
  type Handlers,
  later,
  refusedFromHistory,
} from '../handling/operation.js';
import { idNamed } from '../state/ids.js';
import type { Journal } from '../state/journal.js';
import { D, isOpen, type Order, type Position } from '../state/records.js';
import { chargeDueInterest } from './borrowing.js';
import { actingUser } from './caller.js';
import { finerThan } from './currencies.js';
import { maxDecimalLength } from './decimal-input.js';
import { closesPosition } from './ledger.js';
import { bestOpposite, exitOrder, matchOrder } from './matching.js';
import { answerForOrder } from './order-view.js';
import { checkAmount, checkTick, loadProduct, quantityFault } from './orders.js';
import { pageFrom } from './paging.js';
import { afterTrading, fitExitOrders, reachedNow } from './position-exits.js';
import { addedMargin, adjustMargin, liquidatedAt, openQuantity } from './positions.js';
import { exitOrdersOf, tradeView } from './trade-view.js';

type Codes<Id extends keyof typeof operationTable> = (typeof operationTable)[Id]['errorCodes'];
type CloseCodes = Codes<'closeTrade'>;
type MarginCodes = Codes<'adjustTradeMargin'>;
type UpdateCodes = Codes<'updateTrade'>;

// Typed by the spec's x-error-codes: a code the spec does not list does not compile.
const refuseClose = <Field extends keyof CloseCodes & string>(
  field: Field,
  code: CloseCodes[Field][number],
) => new Refusal(field, code, code);
const refuseMargin = <Field extends keyof MarginCodes & string>(
  field: Field,
  code: MarginCodes[Field][number],
) => new Refusal(field, code, code);

const refuseUpdate = <Field extends keyof UpdateCodes & string>(
  field: Field,
  code: UpdateCodes[Field][number],
) => new Refusal(field, code, code);

const notFound = () => new NotFound('Trade not found');
const sideOf = { long: 'buy', short: 'sell' } as const;
// Long enough for any real quantity; beyond it a value is a mistake, not a close.

/**
 * One of `userId`'s open trades, named by the path; someone else's is not found, as an order
 * is. Undefined when memory holds no position by that id: a closed one lives in the store
 * alone, and `refusedAsStored` answers for it.
 */
function openTrade(
  journal: Journal,
  userId: number,
  tradeId: string | number,
): Position | undefined {
  const id = idNamed(tradeId);
  if (id === undefined) throw notFound();
  const position = journal.exchange.positions.get(id);
  if (!position) return undefined;
  if (position.userId !== userId) throw notFound();
  if (position.status !== 'open') throw refuseClose('trade_id', 'not_open');
  return position;
}

/** The refusal of a call on a trade memory does not hold: closed if the store holds it. */
const refusedAsStored = (userId: number, tradeId: string | number) =>
  refusedFromHistory(
    (history) => history.trade(userId, Number(tradeId)),
    ({ position }) =>
      position.status === 'closed' ? refuseClose('trade_id', 'not_open') : undefined,
    notFound,
  );

/**
 * Closes `quantity` of open `position` at the market: an order on the other side takes the
 * book, and its fills close the position as a triggered stop loss's do. Returns the order,
 * or undefined when the book has nothing to close it against.
 */
function closeAtMarket(
  journal: Journal,
  position: Position,
  quantity: D,
  now: number,
): Order | undefined {
  const order = exitOrder(journal, position, {
    orderType: 'market',
    price: new D(0),
    quantity,
    conditional: false,
    unwoundTradeId: position.id,
    now,
  });
  if (!bestOpposite(journal, order)) return undefined;
  journal.addOrder(order);
  matchOrder(journal, order, now);
  fitExitOrders(journal, position, now);
  afterTrading(journal, position.productId, now);
  return order;
}

/** Closed trades are history: the list is read from it, paged there. */
const listTrades: ExchangeHandlerOf<'listTrades'> = ({ journal, caller, query, now }) => {
  // A filter naming no product is a mistake of the caller's, not an empty list.
  if (query.product_id !== undefined) loadProduct(journal, query.product_id);
  const userId = actingUser(caller);
  // What the open ones owe by now is charged first, so the page shows it.
  const open = journal.exchange.positionsOfUser(userId);
  chargeDueInterest(
    journal,
    now,
    open.flatMap((position) => journal.exchange.loansOf(position.id)),
  );
  const { limit, page } = query;
  const filter = {
    status: query.status,
    side: query.side && sideOf[query.side],
    productId: query.product_id === undefined ? undefined : Number(query.product_id),
    fundingCurrency: query.funding_currency,
    tradingType: query.trading_type,
  };
  return later(async (history, state) => {
    const found = await history.trades(userId, filter, (page - 1) * limit, limit);
    const models = found.rows.map(({ position, loans }) => tradeView(state, position, loans));
    return { status: 200, body: pageFrom(found.total, models, limit, page) };
  });
};

const listOrderTrades: ExchangeHandlerOf<'listOrderTrades'> = ({ journal, caller, path }) => {
  const userId = actingUser(caller);
  return answerForOrder(journal.exchange, userId, { id: String(path.order_id) }, (order) => {
    return later(async (history, state) => {
      // Every trade the order opened, oldest first; a store kept from before knows of its
      // last alone, by the order's trade_id. Then the one it closes.
      const opened = await history.tradesOpenedBy(userId, order.id);
      const named = [order.tradeId, closesPosition(order) ? order.unwoundTradeId : null];
      const others = named.filter(
        (id): id is number => id !== null && !opened.some((trade) => trade.position.id === id),
      );
      const trades = [
        ...opened,
        ...(await Promise.all(others.map((id) => history.trade(userId, id)))),
      ];
      const body = trades.flatMap((trade) =>
        trade ? [tradeView(state, trade.position, trade.loans)] : [],
      );
      return { status: 200, body };
    });
  });
};

const closeTrade: ExchangeHandlerOf<'closeTrade'> = (context) => {
  const body = (context.body ?? {}) as z.infer<typeof zCloseTradeBody>;
  const { journal } = context;
  const userId = actingUser(context.caller);
  const position = openTrade(journal, userId, context.path.trade_id);
  if (!position) return refusedAsStored(userId, context.path.trade_id);
  const open = openQuantity(position);
  const asked = body.closed_quantity;
  if (asked !== undefined) {
    if (asked.length > maxDecimalLength) throw refuseClose('closed_quantity', 'too_long');
    if (asked.startsWith('-') || new D(asked).isZero()) {
      throw refuseClose('closed_quantity', 'must_be_positive');
    }
    const closing = new D(asked);
    if (closing.gt(open)) throw refuseClose('closed_quantity', 'more_than_the_open_quantity');
    // What is left open may be under the smallest order: it can still be closed whole.
    const fault = quantityFault(journal, loadProduct(journal, position.productId), closing);
    if (fault && !(fault === 'less_than_order_size' && closing.eq(open))) {
      throw refuseClose('closed_quantity', fault);
    }
  }
  const quantity = asked === undefined ? open : new D(asked);
  if (!closeAtMarket(journal, position, quantity, context.now)) {
    throw refuseClose('closed_quantity', 'no_liquidity');
  }
  return { status: 200, body: tradeView(journal.exchange, position) };
};

const closeAllTrades: ExchangeHandlerOf<'closeAllTrades'> = (context) => {
  const filters = (context.body ?? {}) as z.infer<typeof zCloseAllTradesBody>;
  const { journal } = context;
  const userId = actingUser(context.caller);
  const chosen = journal.exchange
    .positionsOfUser(userId)
    .filter(
      (position) =>
        position.status === 'open' &&
        (filters.side === undefined || position.side === sideOf[filters.side]),
    )
    .sort((a, b) => a.id - b.id);
  // A close moves the price, which may liquidate a trade chosen after it or fire its exits:
  // what is open is read as each one's turn comes.
  const closed = chosen.filter((position) => {
    const open = openQuantity(position);
    return (
      position.status === 'open' &&
      open.gt(0) &&
      closeAtMarket(journal, position, open, context.now) !== undefined
    );
  });
  return { status: 200, body: closed.map((position) => tradeView(journal.exchange, position)) };
};

/** Moves the waiting exit of `type` on `position` to `price`, or places one there. */
function setExit(
  journal: Journal,
  position: Position,
  type: 'limit' | 'stop',
  price: D,
  now: number,
): void {
  const existing = exitOrdersOf(journal.exchange, position).find(
    (order) => order.orderType === type && order.conditional,
  );
  if (existing && isOpen(existing)) {
    const moved = journal.touchOrder(existing);
    moved.price = price;
    moved.updatedAt = now;
    return;
  }
  journal.addOrder(
    exitOrder(journal, position, {
      orderType: type,
      price,
      quantity: openQuantity(position),
      conditional: true,
      unwoundTradeId: position.id,
      now,
    }),
  );
}

const updateTrade: ExchangeHandlerOf<'updateTrade'> = (context) => {
  const { trade: exits } = context.body as z.infer<typeof zUpdateTradeBody>;
  const { journal } = context;
  const userId = actingUser(context.caller);
  const position = openTrade(journal, userId, context.path.trade_id);
  if (!position) return refusedAsStored(userId, context.path.trade_id);
  // Bounded as an order's take profit and stop loss are: an exit off the tick could never trade.
  const product = loadProduct(journal, position.productId);
  checkAmount('take_profit', exits.take_profit);
  checkTick(product, exits.take_profit, 'take_profit');
  checkAmount('stop_loss', exits.stop_loss);
  checkTick(product, exits.stop_loss, 'stop_loss');
  checkNotReached(journal, position, 'take_profit', exits.take_profit);
  checkNotReached(journal, position, 'stop_loss', exits.stop_loss);
  if (exits.take_profit !== undefined) {
    setExit(journal, position, 'limit', new D(exits.take_profit), context.now);
  }
  if (exits.stop_loss !== undefined) {
    setExit(journal, position, 'stop', new D(exits.stop_loss), context.now);
  }
  // Its take profit and stop loss are the trade's own fields: the trade changed.
  if (exits.take_profit !== undefined || exits.stop_loss !== undefined) {
    journal.touchPosition(position).updatedAt = context.now;
  }
  afterTrading(journal, position.productId, context.now);
  return { status: 200, body: tradeView(journal.exchange, position) };
};

/**
 * Refuses an exit the last traded price or the mark has already reached, as a stop order
 * already reached is refused: it would close the trade at the next fill or mark, which a
 * close says plainly.
 */
function checkNotReached(
  journal: Journal,
  position: Position,
  field: 'take_profit' | 'stop_loss',
  sent: string | undefined,
): void {
  if (sent === undefined) return;
  const exit = {
    productId: position.productId,
    side: position.side === 'buy' ? ('sell' as const) : ('buy' as const),
    orderType: field === 'take_profit' ? ('limit' as const) : ('stop' as const),
    price: new D(sent),
    unwoundTradeId: position.id,
    tradingType: position.tradingType,
  };
  if (reachedNow(journal.exchange, exit)) throw refuseUpdate(field, 'would_trigger_immediately');
}

const adjustTradeMargin: ExchangeHandlerOf<'adjustTradeMargin'> = (context) => {
  const { delta: sent } = context.body as z.infer<typeof zAdjustTradeMarginBody>;
  const { journal } = context;
  const userId = actingUser(context.caller);
  const position = openTrade(journal, userId, context.path.trade_id);
  if (!position) return refusedAsStored(userId, context.path.trade_id);
  if (sent.length > maxDecimalLength) throw refuseMargin('delta', 'too_long');
  const delta = new D(sent);
  if (delta.isZero()) throw refuseMargin('delta', 'must_not_be_zero');
  const funding = journal.exchange.currencies.get(position.fundingCurrency);
  if (funding && finerThan(funding, delta)) {
    throw refuseMargin('delta', 'too_many_decimals');
  }
  const product = loadProduct(journal, position.productId);
  if (delta.neg().gt(addedMargin(position, product))) {
    throw refuseMargin('delta', 'more_than_the_added_margin');
  }
  // Margin taken back from a losing trade may leave it under maintenance at the mark, where
  // the next mark would liquidate it at a loss beyond its margin, which the house would pay.
  const mark = journal.exchange.markPrice(position.productId);
  const margin = position.margin.plus(delta);
  if (delta.isNegative() && mark && liquidatedAt(position, product, mark, margin)) {
    throw refuseMargin('delta', 'would_be_liquidated');
  }
  adjustMargin(journal, position, delta, context.now);
  return { status: 200, body: tradeView(journal.exchange, position) };
};

export const tradeHandlers = {
  listTrades,
  listOrderTrades,
  closeTrade,
  closeAllTrades,
  updateTrade,
  adjustTradeMargin,
} satisfies Handlers;
