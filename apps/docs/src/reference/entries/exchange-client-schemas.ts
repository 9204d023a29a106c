/**
 * @module @exchange-kit/exchange-client/schemas
 */
export * from '@exchange-kit/exchange-client/schemas';
