import type { Intent, IntentToTradeInput } from '@exchange-kit/partner-client';
import {
  type QueryKey,
  skipToken,
  type UseMutationResult,
  type UseQueryOptions,
  type UseQueryResult,
  type UseSuspenseQueryResult,
  useMutation,
  useQuery,
  useQueryClient,
  useSuspenseQuery,
} from '@tanstack/react-query';
import { intentQueryOptions, type LoadIntent } from './queries.js';
import { quickExchangeKeys } from './query-keys.js';
import type { QueryOverrides } from './query-overrides.js';

export type { LoadIntent } from './queries.js';

/**
 * Creates an intent. Intent creation is signed with the partner's token secret, so this must be
 * a call to the application's backend, which holds the secret and decides the economics.
 */
export type CreateIntent<Input> = (input: Input) => Promise<Intent>;

/**
 * The intent `intentId`, from the cache (an intent created with useCreateIntent is there) or
 * from `load` when given. Without an id, or without a loader and not in the cache, nothing is
 * fetched.
 */
export function useIntent<TData = Intent>(
  intentId: string | undefined,
  options: { load?: LoadIntent } = {},
  query: QueryOverrides<Intent, Error, TData> = {},
): UseQueryResult<TData, Error> {
  const { load } = options;
  const known =
    intentId === undefined
      ? { queryKey: quickExchangeKeys.noIntent(), queryFn: skipToken, gcTime: 0 }
      : load === undefined
        ? // Read from the cache only: an intent created with useCreateIntent is there.
          { ...intentQueryOptions(intentId, neverLoad), queryFn: skipToken }
        : intentQueryOptions(intentId, load);
  return useQuery({ ...known, ...query } as UseQueryOptions<Intent, Error, TData, QueryKey>);
}

const neverLoad: LoadIntent = () => Promise.reject(new Error('No intent loader'));

/** useIntent for a Suspense boundary: the loader is required, and `data` is the intent. */
export function useSuspenseIntent(
  intentId: string,
  load: LoadIntent,
): UseSuspenseQueryResult<Intent, Error> {
  return useSuspenseQuery(intentQueryOptions(intentId, load));
}

/**
 * Creates intents through the application's backend and caches each one under its id:
 * TanStack's mutation result (`mutate`, `mutateAsync`, `data`, `isPending`, `variables`,
 * `reset`).
 */
export function useCreateIntent<Input>(
  create: CreateIntent<Input>,
): UseMutationResult<Intent, Error, Input> {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: create,
    onSuccess: (intent) => queryClient.setQueryData(quickExchangeKeys.intent(intent.id), intent),
  });
}

/** The order fulfilling an intent: the user buys its payout with `fundingCurrency`. */
export type IntentOrder = Pick<
  IntentToTradeInput,
  'intent_id' | 'side' | 'symbol' | 'currency' | 'quantity'
>;

/**
 * The intent_to_trade order of an intent. The intent fixes the quantity of one side; the funding
 * currency is the intent's when it fixes one, else the one the user chose, which must differ
 * from the payout currency (a TypeError otherwise).
 */
export function orderForIntent(intent: Intent, fundingCurrency?: string): IntentOrder {
  const payout = intent.payout_settlement;
  const funding = intent.funding_settlement;
  const fundWith = funding?.currency ?? fundingCurrency;
  if (!payout || fundWith === undefined) {
    throw new TypeError('The intent lets the user choose the funding currency: pass one');
  }
  // A pair of one currency with itself is traded nowhere: refused here, not by the server.
  if (fundWith === payout.currency) {
    throw new TypeError(
      `The funding currency ${fundWith} is the intent's payout currency ${payout.currency}: fund it in another one`,
    );
  }
  const fixed = payout.quantity !== undefined ? payout : funding;
  if (fixed?.quantity === undefined) throw new TypeError('The intent fixes no quantity');
  return {
    intent_id: intent.id,
    side: 'buy',
    symbol: `${payout.currency}/${fundWith}`,
    currency: fixed.currency,
    quantity: String(fixed.quantity),
  };
}
