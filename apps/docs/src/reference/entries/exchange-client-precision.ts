/**
 * @module @exchange-kit/exchange-client/precision
 */
export * from '@exchange-kit/exchange-client/precision';
