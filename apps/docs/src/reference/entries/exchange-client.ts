/**
 * @module @exchange-kit/exchange-client
 */
export * from '@exchange-kit/exchange-client';
