/**
 * @module @exchange-kit/contract/state-tables
 */
export * from '@exchange-kit/contract/state-tables';
