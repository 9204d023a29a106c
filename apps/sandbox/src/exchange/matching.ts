import type { ExchangeState } from '../state/exchange-state.js';
import type { Journal, Writable } from '../state/journal.js';
import {
  D,
  type Fill,
  isOpen,
  type Order,
  type TrailingStop,
  takesOnly,
} from '../state/records.js';
import { chargeFee } from './fill-fees.js';
import {
  closesPosition,
  fundsFor,
  houseUserId,
  reserveFor,
  settleSpotFill,
  syncReserve,
} from './ledger.js';
import { bookMarginFill, openQuantity } from './positions.js';

/**
 * Matches `taker` against the opposite side of its product's book by price-time priority:
 * best price first, oldest order first at one price, always at the resting order's price.
 * A limit order stops at its price and rests with what is left; a market order takes what
 * the book offers (within its range, for market_with_range) and its remainder is cancelled:
 * it keeps the quantity asked, so its `filled_quantity` tells a shortfall.
 */
export function matchOrder(journal: Journal, taker: Order, now: number): void {
  for (;;) {
    if (!isOpen(taker)) return;
    const maker = bestOpposite(journal, taker);
    if (!maker) break;
    const quantity = D.min(
      taker.quantity.minus(taker.filledQuantity),
      maker.quantity.minus(maker.filledQuantity),
    );
    if (!settle(journal, taker, maker, quantity, maker.price, now)) break;
  }
  if (takesOnly(taker.orderType) && isOpen(taker)) {
    const ending = journal.touchOrder(taker);
    ending.status = 'cancelled';
    ending.updatedAt = now;
    journal.reposition(taker);
    syncReserve(journal, taker);
  }
}

/** The resting order `taker` would meet first, if its price (a range's bound) allows. */
export function bestOpposite(journal: Journal, taker: Order): Order | undefined {
  const side = journal.exchange.book(taker.productId)[taker.side === 'buy' ? 'sell' : 'buy'];
  const maker = side.best(taker);
  // A triggered stop sells or buys at market, whatever its trigger price was.
  if (!maker || (takesOnly(taker.orderType) && taker.orderType !== 'market_with_range')) {
    return maker;
  }
  const crosses =
    taker.side === 'buy' ? maker.price.lte(taker.price) : maker.price.gte(taker.price);
  return crosses ? maker : undefined;
}

/**
 * Books one fill: both orders advance and their holds shrink; a spot side pays and receives
 * in full, so two spot sides swap currencies, and a margin side opens or closes a position.
 * An order that completes with a take profit or stop loss opens its conditional orders.
 * Returns false when a taker that holds nothing (a market order) cannot pay for the fill.
 */
function settle(
  journal: Journal,
  taker: Order,
  maker: Order,
  quantity: D,
  price: D,
  now: number,
): boolean {
  const { exchange: state } = journal;
  const product = state.products.get(taker.productId);
  if (!product) throw new Error(`Order ${taker.id} names no product`);
  const [buyer, seller] = taker.side === 'buy' ? [taker, maker] : [maker, taker];
  const value = quantity.times(price);
  // A taker that holds nothing up front pays for each fill from its free balance; closing a
  // margin position costs nothing new.
  if (takesOnly(taker.orderType) && !closesPosition(taker)) {
    const cost = fundsFor(taker, product, quantity, price);
    const account = state.account(taker.userId, cost.currency);
    const free = account ? account.balance.minus(account.reserved) : new D(0);
    if (free.lt(cost.amount)) return false;
  }
  const fillId = state.next.fill++;
  // Completed below, before the call commits: a margin side's P&L is known once it is booked.
  const fill: Writable<Fill> = {
    id: fillId,
    productId: taker.productId,
    takerOrderId: taker.id,
    makerOrderId: maker.id,
    takerSide: taker.side,
    price,
    quantity,
    createdAt: now,
    takerPnl: null,
    makerPnl: null,
  };
  journal.addFill(fill);
  for (const order of [taker, maker]) {
    const filling = journal.touchOrder(order);
    filling.filledQuantity = order.filledQuantity.plus(quantity);
    filling.filledValue = order.filledValue.plus(value);
    filling.status = order.filledQuantity.gte(order.quantity) ? 'filled' : 'partially_filled';
    filling.updatedAt = now;
    journal.reposition(order);
    syncReserve(journal, order);
  }
  // A margin side swaps no currency: opposite a spot side, the house takes the other end of
  // that side's swap, so no currency comes from nowhere.
  const swapper = (order: Order, other: Order) =>
    order.tradingType === 'spot' ? order.userId : other.tradingType === 'spot' ? houseUserId : null;
  const buying = swapper(buyer, seller);
  if (buying !== null) {
    settleSpotFill(
      journal,
      buying,
      { currency: product.quotedCurrency, amount: value },
      { currency: product.baseCurrency, amount: quantity },
      { id: fillId, now },
    );
  }
  const selling = swapper(seller, buyer);
  if (selling !== null) {
    settleSpotFill(
      journal,
      selling,
      { currency: product.baseCurrency, amount: quantity },
      { currency: product.quotedCurrency, amount: value },
      { id: fillId, now },
    );
  }
  for (const order of [buyer, seller]) {
    if (order.tradingType === 'spot') continue;
    const pnl = bookMarginFill(journal, order, quantity, price, now);
    if (order === taker) fill.takerPnl = pnl;
    else fill.makerPnl = pnl;
  }
  const charged = { id: fillId, quantity, price, now };
  chargeFee(journal, taker, 'taker', product, charged);
  chargeFee(journal, maker, 'maker', product, charged);
  for (const order of [taker, maker]) openConditionalOrders(journal, order, fillId, now);
  return true;
}

/**
 * An order that carries a take profit or a stop loss and is done, filled or cancelled after
 * part of it filled: each becomes a conditional order (opposite side) that waits for its
 * trigger to close the trade, which is the order's margin position or, on spot, its last
 * fill. Its size is what the order filled, or on margin what of it the trade still holds
 * open: a partial close or a liquidation between two fills left less.
 */
function openConditionalOrders(journal: Journal, order: Order, fillId: number, now: number): void {
  if (isOpen(order) || order.filledQuantity.isZero() || order.unwoundTradeId !== null) return;
  const { exchange: state } = journal;
  const product = state.products.get(order.productId);
  if (!product) return;
  const quantity = exitQuantity(state, order);
  if (quantity.isZero()) return;
  const triggers = [
    { price: order.takeProfit, type: 'limit' as const },
    { price: order.stopLoss, type: 'stop' as const },
  ];
  for (const trigger of triggers) {
    if (trigger.price === null) continue;
    journal.addOrder(
      exitOrder(journal, order, {
        orderType: trigger.type,
        price: trigger.price,
        quantity,
        conditional: true,
        unwoundTradeId: order.tradingType === 'spot' ? fillId : (order.tradeId as number),
        now,
      }),
    );
  }
}

/** What the exits of done `order` close: what it filled, within what its trade holds open. */
function exitQuantity(state: ExchangeState, order: Order): D {
  if (order.tradingType === 'spot') return order.filledQuantity;
  const position = order.tradeId === null ? undefined : state.positions.get(order.tradeId);
  if (position?.status !== 'open') return new D(0);
  return D.min(order.filledQuantity, openQuantity(position));
}

/**
 * An order that closes what `opening` opened (a margin position, or a spot fill): on the
 * other side, of the same trading type and funding, naming the trade it nets out. A take
 * profit is a limit order, a stop loss a stop, a close at the market a market order. It holds
 * nothing of its own; the caller adds it to the journal.
 */
export function exitOrder(
  journal: Journal,
  opening: Pick<
    Order,
    'userId' | 'productId' | 'side' | 'tradingType' | 'leverageLevel' | 'fundingCurrency'
  >,
  exit: Pick<Order, 'orderType' | 'price' | 'quantity' | 'conditional'> & {
    unwoundTradeId: number;
    now: number;
  },
): Order {
  const { exchange: state } = journal;
  const product = state.products.get(opening.productId);
  if (!product) throw new Error(`Product ${opening.productId} does not exist`);
  return {
    id: state.next.order++,
    userId: opening.userId,
    productId: opening.productId,
    clientOrderId: null,
    orderType: exit.orderType,
    side: opening.side === 'buy' ? 'sell' : 'buy',
    tradingType: opening.tradingType,
    quantity: exit.quantity,
    filledQuantity: new D(0),
    price: exit.price,
    filledValue: new D(0),
    feeCharged: new D(0),
    status: 'live',
    leverageLevel: opening.leverageLevel,
    fundingCurrency: opening.fundingCurrency,
    takeProfit: null,
    stopLoss: null,
    conditional: exit.conditional,
    tradeId: null,
    unwoundTradeId: exit.unwoundTradeId,
    trailingStop: null,
    reservedAmount: new D(0),
    reservedCurrency: product.quotedCurrency,
    sequence: state.next.orderSequence++,
    createdAt: exit.now,
    updatedAt: exit.now,
  };
}

// Each round may fill orders, print a new price and reach more triggers; there are only as
// many rounds as conditional orders, and this bounds them whatever happens.
const maxTriggerRounds = 100;

/**
 * Whether `price` reaches a waiting order: a take profit (a limit order) when the price
 * comes to it from below for a sell, from above for a buy; any stop the other way round.
 */
export function reachedBy(order: Pick<Order, 'side' | 'orderType' | 'price'>, price: D): boolean {
  return waitsForFall(order) ? price.lte(order.price) : price.gte(order.price);
}

/**
 * Whether waiting `order` is reached by a price falling to its own (a sell's stop, a buy's
 * take profit), rather than rising to it (a sell's take profit, a buy's stop).
 */
export function waitsForFall(order: Pick<Order, 'side' | 'orderType'>): boolean {
  const takeProfit = order.orderType === 'limit';
  return order.side === 'sell' ? !takeProfit : takeProfit;
}

/** Where a trailing stop's trigger stands when the price is `price`. */
export function trailingTrigger(side: Order['side'], trailing: TrailingStop, price: D): D {
  const distance = trailing.type === 'fiat' ? trailing.value : price.times(trailing.value).div(100);
  return side === 'sell' ? price.minus(distance) : price.plus(distance);
}

/** Moves a trailing stop's trigger after `price`, only ever towards it. */
function trail(journal: Journal, order: Order, price: D, now: number): void {
  if (!order.trailingStop) return;
  const trigger = trailingTrigger(order.side, order.trailingStop, price);
  const closer = order.side === 'sell' ? trigger.gt(order.price) : trigger.lt(order.price);
  if (!closer) return;
  const trailing = journal.touchOrder(order);
  trailing.price = trigger;
  trailing.updatedAt = now;
  holdOrCancel(journal, order, now);
}

/**
 * Brings in the waiting orders of `productId` that its last traded price has reached, once
 * trailing stops have followed it: a take profit rests at its price as a limit order, and a
 * stop loss, a stop or a trailing stop takes the book as a market order. The take profit and
 * stop loss of one trade cancel each other: the one reached first cancels the other.
 */
export function triggerConditionalOrders(journal: Journal, productId: number, now: number): void {
  const { exchange: state } = journal;
  if (!journal.traded(productId)) return;
  for (let round = 0; round < maxTriggerRounds; round++) {
    const last = state.lastPrice(productId);
    if (!last) return;
    const waiting = state.waiting(productId);
    for (const order of waiting) trail(journal, order, last, now);
    const reached = waiting.filter((order) => isOpen(order) && reachedBy(order, last));
    if (reached.length === 0) return;
    for (const order of reached) {
      if (!order.conditional || !isOpen(order)) continue;
      for (const other of waiting) {
        if (other !== order && isOpen(other) && closesSameTrade(order, other)) {
          cancel(journal, other, now);
        }
      }
      activate(journal, order, now);
    }
  }
}

/** The take profit and the stop loss of one trade: same owner, same trade, same side. */
const closesSameTrade = (a: Order, b: Order) =>
  a.unwoundTradeId !== null &&
  a.unwoundTradeId === b.unwoundTradeId &&
  a.userId === b.userId &&
  a.side === b.side;

/**
 * Cancels `order`, giving back what it holds. What part of it filled keeps its take profit
 * and stop loss: a margin position would otherwise hold its margin with nothing to close it.
 */
export function cancel(journal: Journal, order: Order, now: number): void {
  const cancelled = journal.touchOrder(order);
  const filledInPart = order.status === 'partially_filled';
  cancelled.status = 'cancelled';
  cancelled.updatedAt = now;
  journal.reposition(order);
  syncReserve(journal, order);
  if (filledInPart) openConditionalOrders(journal, order, lastFillOf(journal, order), now);
}

/** The id of the last fill of `order`, which has filled in part. */
function lastFillOf(journal: Journal, order: Order): number {
  const id = journal.exchange.lastFillOf(order);
  if (id === undefined) throw new Error(`Order ${order.id} has filled in part but has no fill`);
  return id;
}

/**
 * Sets what `order` holds to what it now needs; when its owner's free balance no longer
 * covers that, the order is cancelled instead, so that another user's call, which moved the
 * price, is never refused for it. Returns whether the order stands.
 */
function holdOrCancel(journal: Journal, order: Order, now: number): boolean {
  const product = journal.exchange.products.get(order.productId);
  if (!product) return false;
  const { currency, amount } = reserveFor(order, product);
  const account = journal.exchange.account(order.userId, currency);
  const own = order.reservedCurrency === currency ? order.reservedAmount : new D(0);
  const free = account ? account.balance.minus(account.reserved).plus(own) : new D(0);
  if (amount.gt(free)) {
    cancel(journal, order, now);
    return false;
  }
  syncReserve(journal, order);
  return true;
}

/** A reached order leaves the waiting ones: it rests in the book, or takes it at once. */
function activate(journal: Journal, order: Order, now: number): void {
  const active = journal.touchOrder(order);
  active.conditional = false;
  active.sequence = journal.exchange.next.orderSequence++;
  active.updatedAt = now;
  if (!holdOrCancel(journal, order, now)) return;
  journal.reposition(order);
  matchOrder(journal, order, now);
}
