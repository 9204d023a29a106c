/**
 * @module @exchange-kit/partner-client
 */
export * from '@exchange-kit/partner-client';
