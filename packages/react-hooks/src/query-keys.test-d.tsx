import { describe, expectTypeOf, it } from 'vitest';
import { quickExchangeKeys } from './query-keys.js';

describe('quickExchangeKeys types', () => {
  it('are readonly tuples that TanStack Query can match by prefix', () => {
    expectTypeOf(quickExchangeKeys.transaction('id')).toEqualTypeOf<
      readonly ['exchange-kit', 'quick-exchange', 'transaction', string]
    >();
    expectTypeOf(quickExchangeKeys.all).toEqualTypeOf<
      readonly ['exchange-kit', 'quick-exchange']
    >();
  });
});
