import type { Transaction } from '@exchange-kit/partner-client';
import { QueryClient } from '@tanstack/react-query';
import { describe, expectTypeOf, it } from 'vitest';
import { createQuickExchange } from './provider.js';
import { transactionQueryOptions } from './queries.js';
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

  it('tag the factories keys with their data, for getQueryData', () => {
    const quickExchange = createQuickExchange({ partnersUrl: 'u', publicApiKey: 'k' });
    const { queryKey } = transactionQueryOptions(quickExchange, 'id');
    expectTypeOf(new QueryClient().getQueryData(queryKey)).toEqualTypeOf<Transaction | undefined>();
    expectTypeOf(queryKey).toExtend<
      readonly ['exchange-kit', 'quick-exchange', 'transaction', string]
    >();
  });
});
