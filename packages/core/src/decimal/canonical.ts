import { InvalidDecimalError } from '../errors.js';

/** A decimal.js `Decimal`, or any value that prints itself without exponent through toFixed(). */
export interface DecimalObject {
  isFinite(): boolean;
  toFixed(): string;
}

/** What a request field that takes a decimal accepts. */
export type DecimalInput = number | string | DecimalObject;

// Sign, integer digits, fraction digits, exponent; at least one digit somewhere.
const decimalText = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
// Beyond this an exponent is a typo, not a price: refuse it rather than print a megabyte of zeros.
const maxExponent = 400;

function quote(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function isDecimalObject(value: unknown): value is DecimalObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as DecimalObject).isFinite === 'function' &&
    typeof (value as DecimalObject).toFixed === 'function'
  );
}

const minusSign = 45;
const decimalPoint = 46;
const digitZero = 48;
const digitNine = 57;
const isDigit = (code: number) => code >= digitZero && code <= digitNine;

/**
 * What servers send nearly always: plain digits, maybe trailing fraction zeros ("0.50",
 * "9600000.0"). Such text is read in one pass and cut at most once, with no exponent
 * arithmetic; it runs for every decimal of every answer, where a regular expression per
 * field cost more than parsing the JSON around it. `undefined` for anything else.
 */
function plainCanonical(text: string): string | undefined {
  const length = text.length;
  let at = text.charCodeAt(0) === minusSign ? 1 : 0;
  const first = text.charCodeAt(at);
  if (first === digitZero) at++;
  else if (first > digitZero && first <= digitNine) {
    do at++;
    while (at < length && isDigit(text.charCodeAt(at)));
  } else return undefined;
  let end = length;
  if (at < length) {
    if (text.charCodeAt(at) !== decimalPoint) return undefined;
    // Without a significant fraction digit the point goes with the zeros.
    end = at;
    for (let index = at + 1; index < length; index++) {
      const code = text.charCodeAt(index);
      if (!isDigit(code)) return undefined;
      if (code !== digitZero) end = index + 1;
    }
  }
  const trimmed = end === length ? text : text.slice(0, end);
  return trimmed === '-0' ? '0' : trimmed;
}

/** Moves the decimal point instead of computing, so no digit is ever rounded away. */
function canonicalise(text: string, field: string): string {
  const plain = plainCanonical(text);
  if (plain !== undefined) return plain;
  const match = decimalText.exec(text);
  const [, sign = '', integer = '', fraction = '', exponent = '0'] = match ?? [];
  if (!match || integer.length + fraction.length === 0) {
    throw new InvalidDecimalError(field, `${quote(text)} is not a decimal number`);
  }
  if (Math.abs(Number(exponent)) > maxExponent) {
    throw new InvalidDecimalError(field, `${quote(text)} has an exponent beyond ±${maxExponent}`);
  }
  let digits = integer + fraction;
  let point = integer.length + Number(exponent);
  const significant = digits.replace(/^0+/, '');
  point -= digits.length - significant.length;
  digits = significant.replace(/0+$/, '');
  if (digits === '') return '0';
  let unsigned: string;
  if (point <= 0) unsigned = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) unsigned = digits + '0'.repeat(point - digits.length);
  else unsigned = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return sign === '-' ? `-${unsigned}` : unsigned;
}

/**
 * The canonical decimal string of a request value: no exponent, no leading or trailing
 * zeros, no float artefacts (a number is read as its shortest round-trip form, so 0.1
 * stays "0.1"). Throws InvalidDecimalError naming `field` for NaN, infinities and
 * malformed text.
 */
export function toDecimalString(value: DecimalInput, field: string): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new InvalidDecimalError(field, `${value} is not a finite number`);
    return canonicalise(String(value), field);
  }
  if (typeof value === 'string') return canonicalise(value, field);
  if (isDecimalObject(value)) {
    if (!value.isFinite()) throw new InvalidDecimalError(field, `${value} is not a finite number`);
    return canonicalise(value.toFixed(), field);
  }
  throw new InvalidDecimalError(
    field,
    `expected a number, a decimal string or a Decimal, got ${value === null ? 'null' : typeof value}`,
  );
}
