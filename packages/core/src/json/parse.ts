/**
 * JSON.parse that loses no digit. A JSON number with more significant digits than a double
 * holds exactly (15) is read as its decimal string instead, so
 * `{"price": 123456789012345678901.123456789}` keeps every digit. Text without such a number
 * (nearly all of it) goes straight to JSON.parse.
 */

// A number holding 16 significant digits has a run of 16 digits or dots in its mantissa, and
// in JSON a number follows `:`, `,` or `[`. Anchoring on those lets the scan skip ahead
// to them (strings of digits, like ids, start with a quote and are skipped too).
const mayHoldLongNumber = /[:,[]\s*-?[\d.]{16}/;
// A whole text that is one number has nothing before it.
const isLongNumber = /^\s*-?[\d.]{16}/;
// Strings are matched first so that digits inside them are left alone.
const stringOrNumber = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const maxExactDigits = 15;

function significantDigits(number: string): number {
  const mantissa = number
    .replace(/^-/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '').length;
}

export function parseJson(text: string): unknown {
  if (!mayHoldLongNumber.test(text) && !isLongNumber.test(text)) return JSON.parse(text);
  const exact = text.replace(stringOrNumber, (token) =>
    token.startsWith('"') || significantDigits(token) <= maxExactDigits ? token : `"${token}"`,
  );
  return JSON.parse(exact);
}
