/**
 * @module @exchange-kit/conformance/vitest
 */
export * from '@exchange-kit/conformance/vitest';
