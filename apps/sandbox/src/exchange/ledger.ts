import { Refusal } from '../handling/errors.js';
import type { Journal } from '../state/journal.js';
import {
  D,
  isOpen,
  type LedgerEntry,
  type Order,
  type Product,
  takesOnly,
} from '../state/records.js';
import { feeOn, highestFeeRate } from './fee-rules.js';

/**
 * The exchange's own user: fees are paid to it and margin profits and losses settled with it,
 * so that across all users and the house a currency changes only as funds come in or go out.
 * It has no token, and its balances may go below zero (what the exchange owes).
 */
export const houseUserId = 999;

const notEnoughFreeBalance = () =>
  new Refusal('user', 'not_enough_free_balance', 'Not enough free balance');

/** A stable, made-up deposit address; the sandbox moves no real funds. */
export function depositAddress(userId: number, currency: string): string {
  return `sandbox-${currency.toLowerCase()}-${userId.toString(36)}`;
}

/**
 * The margin that `quantity` at `price` takes at `leverage`, in the funding currency: the
 * notional over the leverage, counted in the base currency when that is the funding one.
 * Cut to 16 places, as the store's numeric division would, so a third stays finite.
 */
export function marginOf(quantity: D, price: D, leverage: number, inBase: boolean): D {
  return marginOn(inBase ? quantity : quantity.times(price), leverage);
}

/** The margin of `notional`, in the funding currency, at `leverage`, cut as `marginOf` cuts it. */
export const marginOn = (notional: D, leverage: number): D =>
  notional.div(leverage).toDecimalPlaces(16, D.ROUND_DOWN);

/** A take profit or stop loss on a margin position: the position holds the margin, not it. */
export const closesPosition = (order: Pick<Order, 'unwoundTradeId' | 'tradingType'>) =>
  order.unwoundTradeId !== null && order.tradingType !== 'spot';

/**
 * What `quantity` of `order` at `price` takes of its owner's funds, its fee at the higher of
 * the product's two rates since either may apply: on spot, the quote amount a buy pays and
 * its fee, or the base amount a sell gives (its fee is taken from the quote it receives); on
 * any other trading type, its margin and the fee on its notional, both in the funding currency.
 */
export function fundsFor(
  order: Order,
  product: Product,
  quantity: D,
  price: D,
): { currency: string; amount: D } {
  if (order.tradingType !== 'spot') {
    const inBase = order.fundingCurrency === product.baseCurrency;
    const notional = inBase ? quantity : quantity.times(price);
    const margin = marginOf(quantity, price, order.leverageLevel, inBase);
    return {
      currency: order.fundingCurrency,
      amount: margin.plus(feeOn(notional, highestFeeRate(product))),
    };
  }
  if (order.side === 'sell') return { currency: product.baseCurrency, amount: quantity };
  const value = quantity.times(price);
  return {
    currency: product.quotedCurrency,
    amount: value.plus(feeOn(value, highestFeeRate(product))),
  };
}

/**
 * What an order must hold of its owner's funds for its unfilled part at its price. A waiting
 * stop holds what it would at its trigger price. Closed orders hold nothing, nor do orders
 * that take (each fill checks the funds it takes), nor a take profit or stop loss while it
 * waits, nor one that closes a margin position.
 */
export function reserveFor(order: Order, product: Product): { currency: string; amount: D } {
  const remaining = order.quantity.minus(order.filledQuantity);
  const needed = fundsFor(order, product, remaining, order.price);
  const waitsOnTrade = order.unwoundTradeId !== null && order.conditional;
  const takes = takesOnly(order.orderType) && !order.conditional;
  if (!isOpen(order) || waitsOnTrade || closesPosition(order) || takes) {
    return { currency: needed.currency, amount: new D(0) };
  }
  return needed;
}

/**
 * Sets what `order` holds to what it now requires, moving the difference on its owner's
 * reserved balance. Refuses with not_enough_free_balance when the balance does not cover
 * the increase; the call is then undone.
 */
export function syncReserve(journal: Journal, order: Order): void {
  const product = journal.exchange.products.get(order.productId);
  if (!product) throw new Error(`Order ${order.id} names no product`);
  const { currency, amount } = reserveFor(order, product);
  const before = { amount: order.reservedAmount, currency: order.reservedCurrency };
  const holding = journal.touchOrder(order);
  holding.reservedAmount = amount;
  holding.reservedCurrency = currency;
  adjustReserved(journal, order.userId, before.currency, before.amount.neg());
  adjustReserved(journal, order.userId, currency, amount);
}

/** Moves `delta` onto `userId`'s reserved balance in `currency`, within the balance. */
export function adjustReserved(journal: Journal, userId: number, currency: string, delta: D): void {
  const account = journal.openAccount(userId, currency, depositAddress(userId, currency));
  const reserved = account.reserved.plus(delta);
  if (account.balance.lt(reserved)) throw notEnoughFreeBalance();
  account.reserved = reserved;
}

/** What a posting names as its cause: a fill, a position (by its trade id), or nothing. */
export type EntrySource = {
  type: NonNullable<LedgerEntry['sourceObjectType']>;
  id: number;
} | null;

export interface Posting {
  userId: number;
  currency: string;
  /** Signed: negative when the balance goes down. */
  amount: D;
  sourceAction: LedgerEntry['sourceAction'];
  source: EntrySource;
  now: number;
}

/**
 * Posts one change of a balance to the ledger, opening the account when the user has none in
 * that currency yet: the one way a balance changes. A decrease that would take the balance
 * under what the account holds reserved is refused with not_enough_free_balance, and the
 * call undone.
 */
export function postEntry(journal: Journal, posting: Posting): LedgerEntry {
  const { userId, currency, sourceAction, source, now } = posting;
  // A fee of nothing, negated, is -0, which the store would read back as 0.
  const amount = posting.amount.isZero() ? new D(0) : posting.amount;
  const account = journal.openAccount(userId, currency, depositAddress(userId, currency));
  const mayOwe = userId === houseUserId;
  if (!mayOwe && amount.isNeg() && account.balance.plus(amount).lt(account.reserved)) {
    throw notEnoughFreeBalance();
  }
  return journal.appendEntry({
    userId,
    currency,
    amount,
    sourceAction,
    sourceObjectType: source?.type ?? null,
    sourceObjectId: source?.id ?? null,
    createdAt: now,
  });
}

/** One side of a spot fill: `userId` pays `paid` of one currency and receives `received` of another. */
export function settleSpotFill(
  journal: Journal,
  userId: number,
  paying: { currency: string; amount: D },
  receiving: { currency: string; amount: D },
  fill: { id: number; now: number },
): void {
  const source = { type: 'Execution' as const, id: fill.id };
  const post = (currency: string, amount: D) =>
    postEntry(journal, { userId, currency, amount, sourceAction: 'trade', source, now: fill.now });
  post(paying.currency, paying.amount.neg());
  post(receiving.currency, receiving.amount);
}
