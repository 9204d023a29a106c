import { HttpError } from '../http/types.js';
import type { Journal } from './journal.js';
import { D, isOpen, type Order } from './state.js';

const notEnoughFreeBalance = () =>
  new HttpError(422, 'Not enough free balance', { user: ['not_enough_free_balance'] });

/** A stable, made-up deposit address; the sandbox moves no real funds. */
export function depositAddress(userId: number, currency: string): string {
  return `sandbox-${currency.toLowerCase()}-${userId.toString(36)}`;
}

/**
 * What an order must hold of its owner's funds for its unfilled part: the quote amount of a
 * spot buy, the base amount of a spot sell, and the margin (notional / leverage) in the
 * funding currency of any other trading type. Closed orders hold nothing, and neither do
 * conditional ones: they only close a position when triggered.
 */
export function reserveFor(
  order: Order,
  baseCurrency: string,
  quotedCurrency: string,
): { currency: string; amount: D } {
  const remaining = order.quantity.minus(order.filledQuantity);
  const held = (currency: string, amount: D) => ({
    currency,
    amount: isOpen(order) ? amount : new D(0),
  });
  if (order.conditional) return { currency: quotedCurrency, amount: new D(0) };
  if (order.tradingType !== 'spot') {
    // Cut to 16 places, as the store's numeric division would, so a third stays finite.
    const margin = remaining
      .times(order.price)
      .div(order.leverageLevel)
      .toDecimalPlaces(16, D.ROUND_DOWN);
    return held(order.fundingCurrency, margin);
  }
  return order.side === 'buy'
    ? held(quotedCurrency, remaining.times(order.price))
    : held(baseCurrency, remaining);
}

/**
 * Sets what `order` holds to what it now requires, moving the difference on its owner's
 * reserved balance. Refuses with not_enough_free_balance when the balance does not cover
 * the increase; the call is then undone.
 */
export function syncReserve(journal: Journal, order: Order): void {
  const product = journal.state.products.get(order.productId);
  if (!product) throw new Error(`Order ${order.id} names no product`);
  const { currency, amount } = reserveFor(order, product.baseCurrency, product.quotedCurrency);
  journal.touchOrder(order);
  const before = { amount: order.reservedAmount, currency: order.reservedCurrency };
  order.reservedAmount = amount;
  order.reservedCurrency = currency;
  adjustReserved(journal, order.userId, before.currency, before.amount.neg());
  adjustReserved(journal, order.userId, currency, amount);
}

function adjustReserved(journal: Journal, userId: number, currency: string, delta: D): void {
  const account = journal.openAccount(userId, currency, depositAddress(userId, currency));
  const reserved = account.reserved.plus(delta);
  if (account.balance.lt(reserved)) throw notEnoughFreeBalance();
  account.reserved = reserved;
}

/** One side of a spot fill: `userId` pays `paid` of one currency and receives `received` of another. */
export function exchange(
  journal: Journal,
  userId: number,
  payCurrency: string,
  paid: D,
  receiveCurrency: string,
  received: D,
): void {
  const receiving = journal.openAccount(
    userId,
    receiveCurrency,
    depositAddress(userId, receiveCurrency),
  );
  const existing = journal.state.account(userId, payCurrency);
  if (!existing) throw notEnoughFreeBalance();
  const paying = journal.touchAccount(existing);
  const balance = paying.balance.minus(paid);
  if (balance.lt(paying.reserved)) throw notEnoughFreeBalance();
  paying.balance = balance;
  receiving.balance = receiving.balance.plus(received);
}
