import type { Journal, Writable } from '../state/journal.js';
import { D, isOpen, type Order, type Position, type Product } from '../state/records.js';
import { borrowForFill, chargeDueInterest, repayForClose } from './borrowing.js';
import { adjustReserved, closesPosition, houseUserId, marginOn, postEntry } from './ledger.js';

/**
 * The margin position that `order` closes, when it is a take profit or stop loss on one.
 * Such an order never opens a position of its own.
 */
export function positionClosedBy(journal: Journal, order: Order): Position | undefined {
  if (!closesPosition(order)) return undefined;
  return journal.exchange.positions.get(order.unwoundTradeId as number);
}

export const openQuantity = (position: Position) =>
  position.quantity.minus(position.closedQuantity);

/**
 * Books one margin fill of `order`: a take profit or stop loss closes part of its position
 * (a position already closed takes no more); any other order opens its position with its
 * first fill, under an id of its own that becomes the order's trade id, and adds to it with
 * the next ones. Both sides of one fill may open a position, so the id is not the fill's.
 * Returns the profit or loss the fill realized: 0 unless it closed part of a position.
 */
export function bookMarginFill(
  journal: Journal,
  order: Order,
  quantity: D,
  price: D,
  now: number,
): D {
  const product = journal.exchange.products.get(order.productId);
  if (!product) throw new Error(`Order ${order.id} names no product`);
  if (order.unwoundTradeId !== null) {
    const position = positionClosedBy(journal, order);
    return position?.status === 'open'
      ? closePosition(journal, position, product, quantity, price, now)
      : new D(0);
  }
  // A position closed while its order still rests takes no more: the order opens another.
  const held = order.tradeId === null ? undefined : journal.exchange.positions.get(order.tradeId);
  const open = held?.status === 'open' ? held : undefined;
  let position: Writable<Position>;
  const added = open ? addedMargin(open, product) : new D(0);
  if (open) {
    chargeDueInterest(journal, now, journal.exchange.loansOf(open.id));
    position = journal.touchPosition(open);
  } else {
    const id = journal.exchange.next.position++;
    position = journal.addPosition({
      id,
      userId: order.userId,
      productId: order.productId,
      tradingType: order.tradingType,
      side: order.side,
      leverageLevel: order.leverageLevel,
      fundingCurrency: order.fundingCurrency,
      quantity: new D(0),
      openValue: new D(0),
      closedQuantity: new D(0),
      closedValue: new D(0),
      closedCost: new D(0),
      margin: new D(0),
      realizedPnl: new D(0),
      closeFee: new D(0),
      status: 'open',
      place: journal.exchange.placePosition(order.userId),
      orderId: order.id,
      createdAt: now,
      updatedAt: now,
    });
    journal.touchOrder(order).tradeId = id;
  }
  if (open) growWholeExits(journal, open, quantity, now);
  position.quantity = position.quantity.plus(quantity);
  position.openValue = position.openValue.plus(quantity.times(price));
  position.updatedAt = now;
  holdMargin(journal, position, product, added);
  const inBase = position.fundingCurrency === product.baseCurrency;
  borrowForFill(journal, position, { quantity, price, inBase, now });
  return new D(0);
}

/**
 * A take profit or stop loss that covers the whole of open `position` goes on covering it as
 * a fill adds `added`, as it shrinks with a partial close: the trade shows it as its own. One
 * that covers a part (an order's, for what that order filled) stays that part.
 */
function growWholeExits(journal: Journal, position: Position, added: D, now: number): void {
  const open = openQuantity(position);
  for (const order of journal.exchange.exitsOf(position.id)) {
    if (!order.conditional || !isOpen(order)) continue;
    if (!order.quantity.minus(order.filledQuantity).eq(open)) continue;
    const grown = journal.touchOrder(order);
    grown.quantity = order.quantity.plus(added);
    grown.updatedAt = now;
  }
}

/**
 * Closes `quantity` of `position` at `price`: its margin is released in proportion, and the
 * profit or loss against the average open price of its open part is paid into the funding
 * account. A loss is taken from the released margin, then from what adjust_margin added to
 * the position, and never beyond both, so no balance falls under what its owner's other
 * orders and positions hold. A closing fill calls it, and so does the mark price when it
 * closes a position without a fill (the house on the other side). Returns what was paid: the
 * profit, or the loss as a negative amount.
 */
export function closePosition(
  journal: Journal,
  position: Position,
  product: Product,
  quantity: D,
  price: D,
  now: number,
): D {
  chargeDueInterest(journal, now, journal.exchange.loansOf(position.id));
  const closing = journal.touchPosition(position);
  const openBefore = openQuantity(position);
  const closed = D.min(quantity, openBefore);
  const added = addedMargin(position, product);
  const cost = closed.eq(openBefore) ? openCost(position) : shareOfCost(position, closed);
  const value = closed.times(price);
  const gain = position.side === 'buy' ? value.minus(cost) : cost.minus(value);
  const inBase = position.fundingCurrency === product.baseCurrency;
  const pnl = (inBase ? gain.div(price) : gain).toDecimalPlaces(16, D.ROUND_FLOOR);
  closing.closedQuantity = position.closedQuantity.plus(closed);
  closing.closedValue = position.closedValue.plus(value);
  closing.closedCost = position.closedCost.plus(cost);
  if (openQuantity(position).isZero()) closing.status = 'closed';
  closing.updatedAt = now;
  const before = position.margin;
  // A loss beyond the margin released takes from what was added, which then holds less.
  const beyond = pnl.neg().minus(before.minus(heldMargin(closing, product, added)));
  const taken = beyond.gt(0) ? D.min(beyond, added) : new D(0);
  holdMargin(journal, closing, product, added.minus(taken));
  const realized = D.max(pnl, before.minus(position.margin).neg());
  closing.realizedPnl = position.realizedPnl.plus(realized);
  // The house is the other side of every margin profit and loss.
  const currency = position.fundingCurrency;
  const source = { type: 'Trade' as const, id: position.id };
  const settle = (userId: number, amount: D) =>
    postEntry(journal, { userId, currency, amount, sourceAction: 'cfd_pnl', source, now });
  settle(position.userId, realized);
  settle(houseUserId, realized.neg());
  repayForClose(journal, position, { closed, openBefore, now });
  return realized;
}

/** What the open part of `position` cost to open. */
const openCost = (position: Position) => position.openValue.minus(position.closedCost);

/** What `closed` of the open part of `position` cost to open, at its average open price. */
const shareOfCost = (position: Position, closed: D) =>
  openCost(position).times(closed).div(openQuantity(position));

/**
 * The average open price of the open part of `position`, which a close does not move and a
 * fill that adds to it does; once nothing is open, that of all its opening fills.
 */
export function openPrice(position: Position): D {
  const open = openQuantity(position);
  return open.isZero() ? position.openValue.div(position.quantity) : openCost(position).div(open);
}

/** The margin the open part of `position` takes at its leverage, at its average open price. */
export function requiredMargin(position: Position, product: Product): D {
  const inBase = position.fundingCurrency === product.baseCurrency;
  const open = openQuantity(position);
  // On the open part's cost, not its quantity times its average: a third stays exact.
  return marginOn(inBase ? open : openCost(position), position.leverageLevel);
}

/** The profit or loss of the open part of `position` at `mark`, in its funding currency. */
export function openPnl(position: Position, product: Product, mark: D): D {
  const move =
    position.side === 'buy' ? mark.minus(openPrice(position)) : openPrice(position).minus(mark);
  const gain = move.times(openQuantity(position));
  return position.fundingCurrency === product.baseCurrency ? gain.div(mark) : gain;
}

// The spec's Trade: maintenance is half the margin the open quantity takes.
const maintenanceShare = new D('0.5');

/**
 * The margin under which `position` is liquidated: a share of what its open part requires,
 * cut as the P&L a close pays is cut.
 */
export const maintenanceMargin = (position: Position, product: Product) =>
  requiredMargin(position, product).times(maintenanceShare).toDecimalPlaces(16, D.ROUND_FLOOR);

/**
 * Whether the mark price `mark` liquidates `position`, holding `margin`: its margin plus its
 * open P&L at the mark is at or under its maintenance margin.
 */
export const liquidatedAt = (
  position: Position,
  product: Product,
  mark: D,
  margin = position.margin,
) => margin.plus(openPnl(position, product, mark)).lte(maintenanceMargin(position, product));

/**
 * The mark price from which `liquidatedAt` holds: at it and under for a long, at it and over
 * for a short. Solved for a quote-funded trade, whose P&L is linear in the price, and for a
 * base-funded one, whose P&L is divided by it. Infinity when every price does (a base-funded
 * long whose margin is short of maintenance by more than its quantity); null when none does
 * (a base-funded short with more margin over maintenance than its quantity) or nothing is open.
 */
export function liquidationPrice(position: Position, product: Product): D | null {
  const open = openQuantity(position);
  if (open.isZero()) return null;
  const cushion = position.margin.minus(maintenanceMargin(position, product));
  const average = openPrice(position);
  const long = position.side === 'buy';
  if (position.fundingCurrency !== product.baseCurrency) {
    const step = cushion.div(open);
    return long ? average.minus(step) : average.plus(step);
  }
  const denominator = long ? open.plus(cushion) : open.minus(cushion);
  if (denominator.lte(0)) return long ? new D(Number.POSITIVE_INFINITY) : null;
  return open.times(average).div(denominator);
}

/** What adjust_margin added to `position` beyond the margin its open part requires. */
export const addedMargin = (position: Position, product: Product) =>
  position.margin.minus(requiredMargin(position, product));

/**
 * What `position` holds as margin: what its open part takes at its average open price, plus
 * `added` by adjust_margin, which stays until nothing is open.
 */
const heldMargin = (position: Position, product: Product, added: D): D =>
  openQuantity(position).isZero() ? new D(0) : requiredMargin(position, product).plus(added);

/** Sets the margin `position` holds to `heldMargin`, moving the difference on its reserve. */
function holdMargin(
  journal: Journal,
  position: Writable<Position>,
  product: Product,
  added: D,
): void {
  const margin = heldMargin(position, product, added);
  adjustReserved(journal, position.userId, position.fundingCurrency, margin.minus(position.margin));
  position.margin = margin;
}

/** Moves `delta` of its owner's free balance onto the margin of open `position`, or back. */
export function adjustMargin(journal: Journal, position: Position, delta: D, now: number): void {
  const adjusted = journal.touchPosition(position);
  adjustReserved(journal, position.userId, position.fundingCurrency, delta);
  adjusted.margin = position.margin.plus(delta);
  adjusted.updatedAt = now;
}
