/**
 * @module @exchange-kit/react-hooks
 */
export * from '@exchange-kit/react-hooks';
