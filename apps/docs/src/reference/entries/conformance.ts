/**
 * @module @exchange-kit/conformance
 */
export * from '@exchange-kit/conformance';
