import { D, type Order, type Product } from '../state/exchange-state.js';
import type { Journal } from '../state/journal.js';
import { type FeeRole, feeOn, feeRate } from './fee-rules.js';
import { houseUserId, postEntry } from './ledger.js';

/**
 * What one side of a fill is charged its fee on, and in: on spot, what it receives (the base
 * amount a buy gets, the quote amount a sell gets); on margin, the notional, in the funding
 * currency its margin is held in.
 */
function feeBase(order: Order, product: Product, quantity: D, price: D) {
  if (order.tradingType !== 'spot') {
    const inBase = order.fundingCurrency === product.baseCurrency;
    return { currency: order.fundingCurrency, amount: inBase ? quantity : quantity.times(price) };
  }
  return order.side === 'buy'
    ? { currency: product.baseCurrency, amount: quantity }
    : { currency: product.quotedCurrency, amount: quantity.times(price) };
}

/**
 * Charges one side of fill `fillId` its fee, as a `trade_fee` entry against the execution,
 * paid to the house. A spot side pays from what it just received and a margin order's hold
 * covers its fee, so the fee never reaches what the account holds reserved; a fill that
 * closes a position at a loss that took its whole margin pays what is left free, no more.
 */
export function chargeFee(
  journal: Journal,
  order: Order,
  role: FeeRole,
  product: Product,
  fill: { id: number; quantity: D; price: D; now: number },
): void {
  const { currency, amount } = feeBase(order, product, fill.quantity, fill.price);
  const account = journal.exchange.account(order.userId, currency);
  const free = account ? D.max(account.balance.minus(account.reserved), 0) : new D(0);
  const fee = D.min(feeOn(amount, feeRate(product, role)), free);
  const charge = {
    currency,
    sourceAction: 'trade_fee' as const,
    source: { type: 'Execution' as const, id: fill.id },
    now: fill.now,
  };
  postEntry(journal, { ...charge, userId: order.userId, amount: fee.neg() });
  postEntry(journal, { ...charge, userId: houseUserId, amount: fee });
}
