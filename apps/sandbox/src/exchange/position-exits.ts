/**
 * What closes a margin position besides a fill of its own: its take profit and stop loss kept
 * within what is open, and the mark price, which closes a position when it reaches one of them
 * or takes the position's margin to its maintenance margin (a liquidation).
 */
import { D, type Position } from '../state/exchange-state.js';
import type { Journal } from '../state/journal.js';
import { cancel, reachedBy, triggerConditionalOrders } from './matching.js';
import { closePosition, maintenanceMargin, openPnl, openQuantity } from './positions.js';
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

/**
 * The open positions of `productId` that `mark` may now reach. Once every open position has
 * been checked at a mark, one that was not reached can only come within reach of the same
 * mark by changing itself or its exits, which the journal notes: while the mark stays where it
 * was checked, only those are checked, so a burst of fills at one price costs each call the
 * positions it changed, not every position of the product.
 */
function reachable(journal: Journal, productId: number, mark: D): Position[] {
  const { exchange: state } = journal;
  const everyOne = !state.checkedMarks.get(productId)?.eq(mark);
  state.checkedMarks.set(productId, mark);
  const unchecked = state.takeUnchecked(productId);
  const candidates: Position[] = [];
  if (everyOne) {
    for (const position of state.positions.values()) {
      if (position.productId === productId) candidates.push(position);
    }
  } else {
    for (const id of unchecked) {
      const position = state.positions.get(id);
      if (position) candidates.push(position);
    }
  }
  return candidates.filter((position) => position.status === 'open').sort((a, b) => a.id - b.id);
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
  for (const position of reachable(journal, productId, mark)) {
    const exits = exitOrdersOf(state, position).filter((order) => order.conditional);
    const reached = exits.find((order) => reachedBy(order, mark));
    if (reached) {
      const quantity = D.min(
        reached.quantity.minus(reached.filledQuantity),
        openQuantity(position),
      );
      closePosition(journal, position, product, quantity, mark, now);
      for (const order of exits) cancel(journal, order, now);
    }
    if (
      position.status === 'open' &&
      position.margin
        .plus(openPnl(position, product, mark))
        .lte(maintenanceMargin(position, product))
    ) {
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
  journal.exchange.setMarkPrice(productId, price);
  closeAtMark(journal, productId, now);
}
