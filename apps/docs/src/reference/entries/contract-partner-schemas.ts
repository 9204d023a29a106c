/**
 * @module @exchange-kit/contract/partner/schemas
 */
export * from '@exchange-kit/contract/partner/schemas';
