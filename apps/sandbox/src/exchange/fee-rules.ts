import type { D, Product } from '../state/exchange-state.js';

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
