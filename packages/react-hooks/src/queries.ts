/**
 * TanStack Query options for everything the hooks read, built with `queryOptions()`: the same
 * object serves useQuery, useSuspenseQuery, queryClient.prefetchQuery and ensureQueryData, on a
 * server (prefetch, then dehydrate) as in the browser. Reads forward the query's AbortSignal to
 * the client call, so a query TanStack cancels stops its request.
 */
import { hasFlag } from '@exchange-kit/contract/state-tables';
import type { Intent, SessionInput, Transaction } from '@exchange-kit/partner-client';
import { queryOptions, skipToken } from '@tanstack/react-query';
import { isExchangeUnavailable, type QuickExchangeError } from './errors.js';
import type { QuickExchange } from './provider.js';
import { quickExchangeKeys } from './query-keys.js';
import type { QuickExchangeSession } from './session-shape.js';

type Schemas = import('@exchange-kit/partner-client').components['schemas'];

export interface SessionQueryInput {
  /** Defaults to the browser's language, from which the server suggests a country. */
  userLocale?: string;
  ancestorOrigins?: string;
  /** The widget initialization object, when the session is for the widget. */
  widget?: Schemas['WidgetInitialization'];
}

export function sessionInput(input: SessionQueryInput): SessionInput {
  const locale =
    input.userLocale ?? (typeof navigator === 'undefined' ? undefined : navigator.language);
  return {
    ...(locale ? { user_locale: locale } : {}),
    ...(input.ancestorOrigins === undefined ? {} : { ancestor_origins: input.ancestorOrigins }),
    ...(input.widget === undefined ? {} : { config: input.widget }),
  };
}

/** Opening a session is tried again, three times, only where the exchange was unavailable. */
const mayOpenLater = (failures: number, error: QuickExchangeError): boolean =>
  failures < 3 && isExchangeUnavailable(error);

/**
 * The user session of a QuickExchange. Opening a session is not a read: a refetch, an
 * invalidation or a reset hands back the session already opened (its secret is still in the
 * keeper) instead of opening another, and the request is not aborted with the query, since
 * the server would have opened the session all the same. useRenewSession opens a new one.
 *
 * A session that could not be opened (the exchange unreachable or failing) is tried again with
 * TanStack's backoff, three times, then again when the window regains focus or the network comes
 * back, or on `refetch()`; a refusal (4xx) is not. All of them share the one request in flight.
 */
export function sessionQueryOptions(quickExchange: QuickExchange, input: SessionQueryInput = {}) {
  const { sessions, publicApiKey } = quickExchange;
  return queryOptions<
    QuickExchangeSession,
    QuickExchangeError,
    QuickExchangeSession,
    ReturnType<typeof quickExchangeKeys.session>
  >({
    queryKey: quickExchangeKeys.session(publicApiKey),
    // The session opened here, else one restored into the cache, else a new one.
    queryFn: ({ client, queryKey }) =>
      sessions.current() ??
      client.getQueryData<QuickExchangeSession>(queryKey) ??
      sessions.open(sessionInput(input)),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    retry: mayOpenLater,
  });
}

export interface TransactionQueryInput {
  /**
   * The session whose secret signs the reads; by default the one that created the transaction
   * through this QuickExchange, else none (a server that requires the session JWT refuses).
   */
  sessionId?: string | undefined;
  /** How often a PENDING transaction is polled, in ms. Default 2000. */
  pollIntervalMs?: number;
}

/**
 * A transaction with its instructions. Polled while its state is flagged `polled` in the
 * transaction state table (PENDING): the other states wait for this user's own calls, which
 * refresh it, or end.
 */
export function transactionQueryOptions(
  quickExchange: QuickExchange,
  transactionId: string,
  input: TransactionQueryInput = {},
) {
  const { sessions } = quickExchange;
  const pollIntervalMs = input.pollIntervalMs ?? 2_000;
  return queryOptions<
    Transaction,
    QuickExchangeError,
    Transaction,
    ReturnType<typeof quickExchangeKeys.transaction>
  >({
    queryKey: quickExchangeKeys.transaction(transactionId),
    queryFn: ({ signal }) =>
      sessions
        .clientFor(input.sessionId ?? sessions.sessionOf(transactionId))
        .transactions.status(transactionId, { signal }),
    staleTime: 1_000,
    refetchInterval: (query) => {
      const current = query.state.data?.status;
      return current && hasFlag('transaction', current, 'polled') ? pollIntervalMs : false;
    },
  });
}

/**
 * The options of a transaction hook that has no transaction yet: nothing is fetched, the key is
 * outside `transactions()`, and the entry goes as soon as the hook unmounts.
 */
export function noTransactionQueryOptions() {
  return queryOptions<
    Transaction,
    QuickExchangeError,
    Transaction,
    ReturnType<typeof quickExchangeKeys.noTransaction>
  >({
    queryKey: quickExchangeKeys.noTransaction(),
    queryFn: skipToken,
    gcTime: 0,
  });
}

/**
 * Loads an intent by id. The partner interface has no operation that reads an intent back, so
 * this is the application's function: typically a call to its backend, which created the intent
 * and kept it. The signal is the query's.
 */
export type LoadIntent = (intentId: string, options: { signal: AbortSignal }) => Promise<Intent>;

/** An intent, through the application's loader. */
export function intentQueryOptions(intentId: string, load: LoadIntent) {
  return queryOptions<Intent, Error, Intent, ReturnType<typeof quickExchangeKeys.intent>>({
    queryKey: quickExchangeKeys.intent(intentId),
    queryFn: ({ signal }) => load(intentId, { signal }),
    staleTime: 60_000,
  });
}
