/**
 * @module @exchange-kit/core/auth
 */
export * from '@exchange-kit/core/auth';
