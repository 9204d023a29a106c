import type { Asset, PartnerState } from '../state/partner-state.js';
import { D } from '../state/records.js';
import { invalid } from './errors.js';

export type { Asset };

/** TTL of a snapshot quote and of the instructions priced from it. */
export const QUOTE_TTL_MS = 20_000;

export function requireAsset(state: PartnerState, code: string, field: string): Asset {
  const asset = state.assets.get(code);
  if (!asset) throw invalid(field, 'unsupported_currency', `Currency ${code} is not supported`);
  return asset;
}

/** A decimal string (already pattern-checked) is positive when unsigned and not all zeros. */
export function isPositive(decimal: string): boolean {
  return !decimal.startsWith('-') && /[1-9]/.test(decimal);
}

/** Whether a decimal string has no more significant decimals than the currency settles. */
export function fitsPrecision(decimal: string, asset: Asset): boolean {
  const decimals = decimal.split('.')[1]?.replace(/0+$/, '') ?? '';
  return decimals.length <= asset.precision;
}

/** Far above any real trade, and far below where numeric arithmetic would overflow. */
const MAX_INTEGER_DIGITS = 20;

/** Refuses a quantity that is not positive, absurdly large, or finer than its currency settles. */
export function checkQuantity(decimal: string, asset: Asset, field: string): void {
  if (!isPositive(decimal)) throw invalid(field, 'must_be_positive');
  if ((decimal.split('.')[0]?.length ?? 0) > MAX_INTEGER_DIGITS) throw invalid(field, 'too_large');
  if (!fitsPrecision(decimal, asset)) {
    throw invalid(
      field,
      'too_precise',
      `${field} has more than ${asset.precision} decimals of ${asset.code}`,
    );
  }
}

export function hasPrice(state: PartnerState, a: string, b: string): boolean {
  return state.price(a, b) !== undefined;
}

/**
 * Takes a snapshot quote: `quantity` of `from` expressed in `to`, in exact decimal arithmetic,
 * cut to the precision of `to`. The caller picks the rounding so that the service never gives
 * away the remainder: what the user pays is rounded up, what the user receives is rounded down.
 * Undefined when no price links the two currencies.
 */
export function convert(
  state: PartnerState,
  quantity: string,
  from: string,
  to: string,
  rounding: 'up' | 'down',
): string | undefined {
  const price = state.price(from, to);
  const target = state.assets.get(to);
  if (!price || !target) return undefined;
  const value =
    price.base === from ? new D(quantity).times(price.price) : new D(quantity).div(price.price);
  const unit = new D(10).pow(target.precision);
  const units = value.times(unit);
  return (rounding === 'up' ? units.ceil() : units.floor()).div(unit).toFixed();
}
