/**
 * @module @exchange-kit/partner-client/schemas
 */
export * from '@exchange-kit/partner-client/schemas';
