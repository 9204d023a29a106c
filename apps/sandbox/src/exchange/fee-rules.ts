import type { Currency, D, Order, Product } from '../state/records.js';

/**
 * The fee rules, one source for what a fill charges and for what the fee reads answer. Every
 * user is at fee tier 0, whose rates are the product's own `taker_fee` and `maker_fee`.
 */

export const feeTier = 0;

/** Whether a side of a fill took liquidity (the order that arrived) or made it (the one resting). */
export type FeeRole = 'taker' | 'maker';

export function feeRate(product: Product, role: FeeRole): D {
  return role === 'taker' ? product.takerFee : product.makerFee;
}

/** The rate an order that may fill either way is held for: the higher of the two. */
export function highestFeeRate(product: Product): D {
  return product.takerFee.gt(product.makerFee) ? product.takerFee : product.makerFee;
}

/** The fee on `amount` at `rate`, every digit kept. */
export const feeOn = (amount: D, rate: D): D => amount.times(rate);

/** What of an order decides the fee of its fill. */
export type FeePayer = Pick<Order, 'tradingType' | 'fundingCurrency'>;

/**
 * What one side of a fill is charged its fee on, and in: on spot, the value traded, in the
 * quote currency, whichever side (as the exchange's clients read `order_fee`); on margin, the
 * notional, in the funding currency its margin is held in.
 */
function feeBase(payer: FeePayer, product: Product, quantity: D, price: D) {
  if (payer.tradingType !== 'spot') {
    const inBase = payer.fundingCurrency === product.baseCurrency;
    return { currency: payer.fundingCurrency, amount: inBase ? quantity : quantity.times(price) };
  }
  return { currency: product.quotedCurrency, amount: quantity.times(price) };
}

/** The fee one side of a fill of `quantity` at `price` is charged, and its currency. */
export function fillFee(
  payer: FeePayer,
  role: FeeRole,
  product: Product,
  fill: { quantity: D; price: D },
): { currency: string; amount: D } {
  const { currency, amount } = feeBase(payer, product, fill.quantity, fill.price);
  return { currency, amount: feeOn(amount, feeRate(product, role)) };
}

/** What a withdrawal of `currency` costs, on top of its amount. */
export const withdrawalFee = (currency: Currency): D => currency.withdrawalFee;
