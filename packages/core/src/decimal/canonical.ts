import { Decimal } from 'decimal.js';
import { InvalidDecimalError } from '../errors.js';

/** What a request field that takes a decimal accepts. */
export type DecimalInput = number | string | Decimal;

// Plain decimal or scientific notation; no whitespace, no thousands separators, no hex.
const decimalText = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function describe(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}

/**
 * The canonical decimal string of a request value: no exponent, no trailing zeros after the
 * point, no float artefacts (a number is read as its shortest round-trip form, so 0.1 stays
 * "0.1"). Throws InvalidDecimalError naming `field` for NaN, infinities and malformed text.
 */
export function toDecimalString(value: DecimalInput, field: string): string {
  let decimal: Decimal;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new InvalidDecimalError(field, `${value} is not a finite number`);
    decimal = new Decimal(String(value));
  } else if (typeof value === 'string') {
    if (!decimalText.test(value)) {
      throw new InvalidDecimalError(field, `${describe(value)} is not a decimal number`);
    }
    decimal = new Decimal(value);
  } else if (Decimal.isDecimal(value)) {
    if (!value.isFinite()) throw new InvalidDecimalError(field, `${value} is not a finite number`);
    decimal = value;
  } else {
    throw new InvalidDecimalError(
      field,
      `expected a number, a decimal string or a Decimal, got ${typeof value}`,
    );
  }
  // toFixed() never uses an exponent; -0 prints as "0".
  return decimal.isZero() ? '0' : decimal.toFixed();
}
