import {
  type QueryKey,
  type UseMutationResult,
  type UseQueryOptions,
  type UseQueryResult,
  type UseSuspenseQueryResult,
  useMutation,
  useQuery,
  useQueryClient,
  useSuspenseQuery,
} from '@tanstack/react-query';
import type { QuickExchangeError } from './errors.js';
import { useQuickExchange } from './provider.js';
import { type SessionQueryInput, sessionInput, sessionQueryOptions } from './queries.js';
import type { QueryOverrides } from './query-overrides.js';
import type { QuickExchangeSession } from './session-shape.js';

export type { QuickExchangeSession } from './session-shape.js';

export interface UserSessionOptions extends SessionQueryInput {
  /**
   * A session saved earlier: used as it is, without opening a new one. Its secret is not
   * saved with it, so its calls go unsigned (a server that requires the session JWT refuses).
   */
  restore?: QuickExchangeSession;
}

/**
 * Opens a user session once per provider, or restores a saved one: TanStack's query result,
 * `data` being the session without its secret.
 */
export function useUserSession<TData = QuickExchangeSession>(
  options: UserSessionOptions = {},
  query: QueryOverrides<QuickExchangeSession, QuickExchangeError, TData> = {},
): UseQueryResult<TData, QuickExchangeError> {
  const quickExchange = useQuickExchange();
  const { restore, ...input } = options;
  return useQuery({
    ...sessionQueryOptions(quickExchange, input),
    ...(restore ? { initialData: restore } : {}),
    ...query,
  } as UseQueryOptions<QuickExchangeSession, QuickExchangeError, TData, QueryKey>);
}

/** useUserSession for a Suspense boundary: `data` is always the session. */
export function useSuspenseUserSession(
  options: UserSessionOptions = {},
): UseSuspenseQueryResult<QuickExchangeSession, QuickExchangeError> {
  const quickExchange = useQuickExchange();
  const { restore, ...input } = options;
  return useSuspenseQuery({
    ...sessionQueryOptions(quickExchange, input),
    ...(restore ? { initialData: restore } : {}),
  });
}

/**
 * Opens a new session in place of the current one. A transaction of the old session is left
 * behind by useTransaction, which follows the session it is given.
 */
export function useRenewSession(
  options: SessionQueryInput = {},
): UseMutationResult<QuickExchangeSession, QuickExchangeError, void> {
  const quickExchange = useQuickExchange();
  const queryClient = useQueryClient();
  const { queryKey } = sessionQueryOptions(quickExchange, options);
  return useMutation({
    mutationFn: () => quickExchange.sessions.open(sessionInput(options)),
    onSuccess: (session) => queryClient.setQueryData(queryKey, session),
  });
}
