import type { Journal } from './journal.js';
import { exchange, reserveFor, syncReserve } from './ledger.js';
import { D, isOpen, type Order, takesOnly } from './state.js';

/**
 * Matches `taker` against the opposite side of its product's book by price-time priority:
 * best price first, oldest order first at one price, always at the resting order's price.
 * A limit order stops at its price and rests with what is left; a market order takes what
 * the book offers (within its range, for market_with_range) and its remainder is cancelled.
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
    journal.touchOrder(taker);
    const filled = taker.filledQuantity.gt(0);
    taker.status = filled ? 'filled' : 'cancelled';
    if (filled) taker.quantity = taker.filledQuantity;
    taker.updatedAt = now;
    journal.reposition(taker);
    syncReserve(journal, taker);
  }
}

/** The resting order `taker` would meet first, if its price (a range's bound) allows. */
export function bestOpposite(journal: Journal, taker: Order): Order | undefined {
  const side = journal.state.book(taker.productId)[taker.side === 'buy' ? 'sell' : 'buy'];
  const maker = side.orders.find((order) => order !== taker);
  // A triggered stop loss sells or buys at market, whatever its trigger price was.
  if (!maker || taker.orderType === 'market' || taker.orderType === 'stop') return maker;
  const crosses =
    taker.side === 'buy' ? maker.price.lte(taker.price) : maker.price.gte(taker.price);
  return crosses ? maker : undefined;
}

/**
 * Books one fill: both orders advance, their holds shrink, a spot fill swaps the currencies
 * between buyer and seller, and an order that completes with a take profit or stop loss
 * opens its conditional orders. Returns false when a market taker cannot pay for the fill.
 */
function settle(
  journal: Journal,
  taker: Order,
  maker: Order,
  quantity: D,
  price: D,
  now: number,
): boolean {
  const { state } = journal;
  const product = state.products.get(taker.productId);
  if (!product) throw new Error(`Order ${taker.id} names no product`);
  const [buyer, seller] = taker.side === 'buy' ? [taker, maker] : [maker, taker];
  const value = quantity.times(price);
  if (takesOnly(taker.orderType) && taker.tradingType === 'spot') {
    const [currency, needed] =
      taker.side === 'buy' ? [product.quotedCurrency, value] : [product.baseCurrency, quantity];
    const account = state.account(taker.userId, currency);
    if (!account || account.balance.minus(account.reserved).lt(needed)) return false;
  }
  const fillId = state.next.fill++;
  journal.addFill({
    id: fillId,
    productId: taker.productId,
    takerOrderId: taker.id,
    makerOrderId: maker.id,
    takerSide: taker.side,
    price,
    quantity,
    createdAt: now,
  });
  for (const order of [taker, maker]) {
    journal.touchOrder(order);
    order.filledQuantity = order.filledQuantity.plus(quantity);
    order.filledValue = order.filledValue.plus(value);
    order.status = order.filledQuantity.gte(order.quantity) ? 'filled' : 'partially_filled';
    order.updatedAt = now;
    journal.reposition(order);
    syncReserve(journal, order);
  }
  // A spot side pays and receives in full; two spot sides thus swap currencies. Margin
  // positions are not modelled, so a margin side only gives its hold back (done above).
  if (buyer.tradingType === 'spot') {
    exchange(journal, buyer.userId, product.quotedCurrency, value, product.baseCurrency, quantity);
  }
  if (seller.tradingType === 'spot') {
    exchange(journal, seller.userId, product.baseCurrency, quantity, product.quotedCurrency, value);
  }
  for (const order of [taker, maker]) openConditionalOrders(journal, order, fillId, now);
  return true;
}

/**
 * A filled order that carries a take profit or a stop loss opens a position; each becomes a
 * conditional order on it (opposite side, same size) that waits for its trigger.
 */
function openConditionalOrders(journal: Journal, order: Order, tradeId: number, now: number): void {
  if (order.status !== 'filled' || order.conditional) return;
  const { state } = journal;
  const product = state.products.get(order.productId);
  if (!product) return;
  const triggers = [
    { price: order.takeProfit, type: 'limit' },
    { price: order.stopLoss, type: 'stop' },
  ];
  for (const trigger of triggers) {
    if (trigger.price === null) continue;
    journal.addOrder({
      id: state.next.order++,
      userId: order.userId,
      productId: order.productId,
      clientOrderId: null,
      orderType: trigger.type,
      side: order.side === 'buy' ? 'sell' : 'buy',
      tradingType: order.tradingType,
      quantity: order.quantity,
      filledQuantity: new D(0),
      price: trigger.price,
      filledValue: new D(0),
      status: 'live',
      leverageLevel: order.leverageLevel,
      fundingCurrency: order.fundingCurrency,
      takeProfit: null,
      stopLoss: null,
      conditional: true,
      tradeId,
      reservedAmount: new D(0),
      reservedCurrency: product.quotedCurrency,
      sequence: state.next.orderSequence++,
      createdAt: now,
      updatedAt: now,
    });
  }
}

// Each round may fill orders, print a new price and reach more triggers; there are only as
// many rounds as conditional orders, and this bounds them whatever happens.
const maxTriggerRounds = 100;

/** Whether a take profit (a limit order) or a stop loss (a stop order) is reached by `price`. */
function reachedBy(order: Order, price: D): boolean {
  const takeProfit = order.orderType === 'limit';
  if (order.side === 'sell') return takeProfit ? price.gte(order.price) : price.lte(order.price);
  return takeProfit ? price.lte(order.price) : price.gte(order.price);
}

/**
 * Brings in the take profit and stop loss orders of `productId` that its last traded price
 * has reached: a take profit rests at its price as a limit order, a stop loss takes the book
 * as a market order, and the other order on the same position is cancelled (one cancels the
 * other). One whose owner no longer has the funds it would hold is cancelled instead.
 */
export function triggerConditionalOrders(journal: Journal, productId: number, now: number): void {
  const { state } = journal;
  if (!journal.traded(productId)) return;
  for (let round = 0; round < maxTriggerRounds; round++) {
    const last = state.fillsByProduct.get(productId)?.at(-1)?.price;
    if (!last) return;
    const waiting = [...state.orders.values()].filter(
      (order) => order.productId === productId && order.conditional && isOpen(order),
    );
    const reached = waiting.filter((order) => reachedBy(order, last));
    if (reached.length === 0) return;
    for (const order of reached.sort((a, b) => a.id - b.id)) {
      if (!order.conditional || !isOpen(order)) continue;
      for (const other of waiting) {
        if (other !== order && other.tradeId === order.tradeId && isOpen(other)) {
          cancel(journal, other, now);
        }
      }
      activate(journal, order, now);
    }
  }
}

/** Cancels `order`, giving back what it holds. */
export function cancel(journal: Journal, order: Order, now: number): void {
  journal.touchOrder(order);
  order.status = 'cancelled';
  order.updatedAt = now;
  journal.reposition(order);
  syncReserve(journal, order);
}

function activate(journal: Journal, order: Order, now: number): void {
  const { state } = journal;
  const product = state.products.get(order.productId);
  if (!product) return;
  // A take profit holds funds as any resting order does; a stop loss, like a market order,
  // holds nothing and checks each fill instead.
  const holds = !takesOnly(order.orderType);
  if (holds) {
    const { currency, amount } = reserveFor(
      { ...order, conditional: false },
      product.baseCurrency,
      product.quotedCurrency,
    );
    const account = state.account(order.userId, currency);
    if (!account || account.balance.minus(account.reserved).lt(amount)) {
      cancel(journal, order, now);
      return;
    }
  }
  journal.touchOrder(order);
  order.conditional = false;
  order.sequence = state.next.orderSequence++;
  order.updatedAt = now;
  journal.reposition(order);
  if (holds) syncReserve(journal, order);
  matchOrder(journal, order, now);
}
