/**
 * @module @exchange-kit/core/decimal
 */
export * from '@exchange-kit/core/decimal';
