export { type DecimalInput, toDecimalString } from './decimal/canonical.js';
export { ExchangeKitError, InvalidDecimalError } from './errors.js';
