/**
 * @module @exchange-kit/contract/exchange/schemas
 */
export * from '@exchange-kit/contract/exchange/schemas';
