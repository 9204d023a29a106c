/**
 * @module @exchange-kit/core
 */
export * from '@exchange-kit/core';
