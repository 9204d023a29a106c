import type { UserSession } from '@exchange-kit/partner-client';
import {
  QueryClient,
  type UseMutationResult,
  type UseQueryResult,
  type UseSuspenseQueryResult,
} from '@tanstack/react-query';
import { describe, expectTypeOf, it } from 'vitest';
import type { QuickExchangeError } from './errors.js';
import { createQuickExchange, type QuickExchangeConfig } from './provider.js';
import { sessionQueryOptions } from './queries.js';
import {
  type QuickExchangeSession,
  useRenewSession,
  useSuspenseUserSession,
  useUserSession,
} from './session.js';

describe('useUserSession types', () => {
  it("returns TanStack's query result of a session without its secret, with the kit's errors", () => {
    expectTypeOf(useUserSession()).toEqualTypeOf<
      UseQueryResult<QuickExchangeSession, QuickExchangeError>
    >();
    expectTypeOf(useSuspenseUserSession()).toEqualTypeOf<
      UseSuspenseQueryResult<QuickExchangeSession, QuickExchangeError>
    >();
    expectTypeOf<QuickExchangeSession>().not.toHaveProperty('session_secret');
    expectTypeOf<QuickExchangeSession['environment']>().toEqualTypeOf<'SANDBOX' | 'PRODUCTION'>();
    expectTypeOf<UserSession>().toHaveProperty('session_secret');
  });

  it('takes TanStack options, select changing the data type', () => {
    const environment = useUserSession({}, { select: (session) => session.environment });
    expectTypeOf(environment.data).toEqualTypeOf<'SANDBOX' | 'PRODUCTION' | undefined>();
    // @ts-expect-error the key and query function are the factory's
    useUserSession({}, { queryKey: ['x'] });
  });

  it('renews through a mutation whose mutateAsync resolves with the session', () => {
    expectTypeOf(useRenewSession()).toEqualTypeOf<
      UseMutationResult<QuickExchangeSession, QuickExchangeError, void>
    >();
    expectTypeOf(
      useRenewSession().mutateAsync,
    ).returns.resolves.toEqualTypeOf<QuickExchangeSession>();
  });

  it('builds query options whose key and data are typed for prefetching', () => {
    const options = sessionQueryOptions(
      createQuickExchange({ partnersUrl: 'u', publicApiKey: 'k' }),
    );
    const queryClient = new QueryClient();
    expectTypeOf(queryClient.getQueryData(options.queryKey)).toEqualTypeOf<
      QuickExchangeSession | undefined
    >();
    expectTypeOf(
      queryClient.ensureQueryData(options),
    ).resolves.toEqualTypeOf<QuickExchangeSession>();
  });

  it('takes a browser configuration and no token secret', () => {
    expectTypeOf({ partnersUrl: 'u', publicApiKey: 'k' }).toExtend<QuickExchangeConfig>();
    expectTypeOf({
      partnersUrl: 'u',
      publicApiKey: 'k',
      tokenSecret: 's',
    }).not.toExtend<QuickExchangeConfig>();
    expectTypeOf({
      partnersUrl: 'u',
      publicApiKey: 'k',
      tokenId: 't',
    }).not.toExtend<QuickExchangeConfig>();
  });
});
