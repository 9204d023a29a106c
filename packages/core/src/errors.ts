/** Base class of every error exchange-kit throws, so callers can catch them all at once. */
export class ExchangeKitError extends Error {
  override name = 'ExchangeKitError';
}

/** A value given for a decimal field is not a finite decimal number. */
export class InvalidDecimalError extends ExchangeKitError {
  override name = 'InvalidDecimalError';

  constructor(
    /** Dotted path of the field, for example `order.quantity`. */
    readonly field: string,
    /** Why the value was refused. */
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}
