import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import { D } from '../state/records.js';

/** A 422 naming `field` and why, as the interfaces refuse a field. */
export const refused = (field: string, code: string): Serialized =>
  uncachedJson(422, { errors: { [field]: [code] } });

/** A price or quantity as the interfaces write one: digits, at most one point, no sign or exponent. */
const decimalText = /^(0|[1-9][0-9]{0,20})(\.[0-9]{1,18})?$/;

/** `value` as a decimal above zero when it is written as the interfaces write one. */
export function positiveDecimal(value: unknown): D | undefined {
  if (typeof value !== 'string' || !decimalText.test(value)) return undefined;
  const decimal = new D(value);
  return decimal.isZero() ? undefined : decimal;
}
