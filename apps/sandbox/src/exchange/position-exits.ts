/**
 * What closes a margin position besides a fill of its own: its take profit and stop loss kept
 * within what is open, and the mark price, which closes a position when it reaches one of them
 * or takes the position's margin to its maintenance margin (a liquidation).
 */

import type { ExchangeState } from '../state/exchange-state.js';
import type { Journal } from '../state/journal.js';
import { ReachIndex } from '../state/reach-index.js';
import { D, type Order, type Position, type Product } from '../state/records.js';
import { closesPosition } from './ledger.js';
import { cancel, reachedBy, triggerConditionalOrders, waitsForFall } from './matching.js';
import { closePosition, liquidatedAt, liquidationPrice, openQuantity } from './positions.js';
import { exitOrdersOf } from './trade-view.js';

/**
 * Keeps what waits to close `position` within what is open: once nothing is, its take profit
 * and stop loss are cancelled; after a partial close they shrink to the open quantity.
 */
export function fitExitOrders(journal: Journal, position: Position, now: number): void {
  const open = openQuantity(position);
  for (const order of exitOrdersOf(journal.exchange, position)) {
    if (open.isZero()) {
      cancel(journal, order, now);
    } else if (order.quantity.minus(order.filledQuantity).gt(open)) {
      const shrunk = journal.touchOrder(order);
      shrunk.quantity = order.filledQuantity.plus(open);
      shrunk.updatedAt = now;
    }
  }
}

// A billionth of a price: far beyond how numbers round, and how the checks a bound stands for
// do (positions.test.ts holds the liquidation price to a trillionth of where they start).
const slack = 1e-9;

/** `price` as a number a little beyond it, above or below, so that rounding misses nothing. */
function outwards(price: D, up: boolean): number {
  const value = price.toNumber();
  return up ? value + Math.abs(value) * slack : value - Math.abs(value) * slack;
}

/** The take profit and stop loss of `position` that wait for the mark price. */
export const markExits = (state: ExchangeState, position: Position) =>
  exitOrdersOf(state, position).filter((order) => order.conditional);

/**
 * Whether a waiting order at its price would go off at once: the last traded price reaches
 * it, or, for a take profit or stop loss of an open trade, which the mark closes too, the
 * mark price does.
 */
export function reachedNow(
  state: ExchangeState,
  order: Pick<
    Order,
    'productId' | 'side' | 'orderType' | 'price' | 'unwoundTradeId' | 'tradingType'
  >,
): boolean {
  const last = state.lastPrice(order.productId);
  if (last && reachedBy(order, last)) return true;
  // A spot exit names the fill it closes, whose id a position may share: only a margin exit
  // names a trade the mark closes.
  const trade = closesPosition(order)
    ? state.positions.get(order.unwoundTradeId as number)
    : undefined;
  const mark =
    trade?.status === 'open' && trade.productId === order.productId
      ? state.markPrice(order.productId)
      : undefined;
  return mark !== undefined && reachedBy(order, mark);
}

/**
 * Sets in `index` the mark prices that reach `position` (see closeAtMark): its liquidation
 * price on its own side, and the price of each exit on the side it waits from. Once nothing is
 * open nothing reaches it.
 */
function indexReach(
  index: ReachIndex,
  state: ExchangeState,
  product: Product,
  position: Position,
): void {
  if (position.status !== 'open') {
    index.delete(position.id);
    return;
  }
  const falls: D[] = [];
  const rises: D[] = [];
  const liquidation = liquidationPrice(position, product);
  if (liquidation) (position.side === 'buy' ? falls : rises).push(liquidation);
  for (const order of markExits(state, position)) {
    (waitsForFall(order) ? falls : rises).push(order.price);
  }
  index.set(
    position.id,
    falls.length > 0 ? outwards(D.max(...falls), true) : null,
    rises.length > 0 ? outwards(D.min(...rises), false) : null,
  );
}

/**
 * The open positions of `productId` that `mark` may reach, by id. They are read from the
 * product's index of the prices that reach each one, kept by reading again only those changed
 * since (themselves or their exits), so a fill costs the positions it reaches or changes,
 * not every position of the product. The first mark after a start reads every open position
 * of the product into it.
 */
function reachable(journal: Journal, product: Product, mark: D): Position[] {
  const { exchange: state } = journal;
  const changed = state.takeUnchecked(product.id);
  let index = state.reach.get(product.id);
  if (!index) {
    index = new ReachIndex();
    state.reach.set(product.id, index);
    for (const position of state.positions.values()) {
      if (position.productId === product.id) indexReach(index, state, product, position);
    }
  } else {
    for (const id of changed) {
      const position = state.positions.get(id);
      if (position) indexReach(index, state, product, position);
      else index.delete(id);
    }
  }
  const reached: Position[] = [];
  for (const id of index.reachedBy(mark.toNumber())) {
    const position = state.positions.get(id);
    if (position?.status === 'open') reached.push(position);
  }
  return reached.sort((a, b) => a.id - b.id);
}

/**
 * Closes at `productId`'s mark price what it now reaches, position by position: first the
 * quantity of a waiting take profit or stop loss it reaches (which cancels the trade's other
 * one, as a trade reaching it does), then whatever is left of a position whose margin plus
 * open P&L at the mark is at or under its maintenance margin. No fill is made: the house is
 * the other side, and the close settles margin and P&L to the ledger as a closing fill does.
 */
export function closeAtMark(journal: Journal, productId: number, now: number): void {
  const { exchange: state } = journal;
  const mark = state.markPrice(productId);
  const product = state.products.get(productId);
  if (!mark || !product) return;
  for (const position of reachable(journal, product, mark)) {
    const exits = markExits(state, position);
    const reached = exits.find((order) => reachedBy(order, mark));
    if (reached) {
      const quantity = D.min(
        reached.quantity.minus(reached.filledQuantity),
        openQuantity(position),
      );
      closePosition(journal, position, product, quantity, mark, now);
      for (const order of exits) cancel(journal, order, now);
    }
    if (position.status === 'open' && liquidatedAt(position, product, mark)) {
      closePosition(journal, position, product, openQuantity(position), mark, now);
    }
    fitExitOrders(journal, position, now);
  }
}

/**
 * What a call that may have traded on `productId` sets off: the waiting orders its last traded
 * price reaches, then the closes at the mark, which a fill moves to its price.
 */
export function afterTrading(journal: Journal, productId: number, now: number): void {
  triggerConditionalOrders(journal, productId, now);
  if (journal.traded(productId)) closeAtMark(journal, productId, now);
}

/** Moves `productId`'s mark price, as the exchange's price feed would, and closes what it reaches. */
export function moveMarkPrice(journal: Journal, productId: number, price: D, now: number): void {
  journal.moveMark(productId, price);
  closeAtMark(journal, productId, now);
}
