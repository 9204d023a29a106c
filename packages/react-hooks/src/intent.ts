import type { Intent, IntentToTradeInput } from '@exchange-kit/partner-client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { errorMessage } from './errors.js';
import { quickExchangeKeys } from './query-keys.js';

/**
 * Loads an intent by id. The partner interface has no operation that reads an intent back, so
 * this is the application's function: typically a call to its backend, which created the intent
 * and kept it.
 */
export type LoadIntent = (intentId: string) => Promise<Intent>;

/**
 * Creates an intent. Intent creation is signed with the partner's token secret, so this must be
 * a call to the application's backend, which holds the secret and decides the economics.
 */
export type CreateIntent<Input> = (input: Input) => Promise<Intent>;

export interface IntentResult {
  intent: Intent | undefined;
  isLoading: boolean;
  error: Error | null;
  errorMessage: string | undefined;
}

/**
 * The intent `intentId`, from the cache (an intent created with useCreateIntent is there) or
 * from `load` when given.
 */
export function useIntent(
  intentId: string | undefined,
  options: { load?: LoadIntent; enabled?: boolean } = {},
): IntentResult {
  const { load } = options;
  const query = useQuery({
    queryKey: quickExchangeKeys.intent(intentId ?? ''),
    queryFn: () => (load as LoadIntent)(intentId as string),
    enabled: intentId !== undefined && load !== undefined && (options.enabled ?? true),
    staleTime: 60_000,
  });
  return {
    intent: intentId === undefined ? undefined : query.data,
    isLoading: query.isLoading,
    error: query.error,
    errorMessage: errorMessage(query.error),
  };
}

export interface CreateIntentResult<Input> {
  /** Resolves with the new intent, or undefined when creation failed (see `error`). */
  createIntent(input: Input): Promise<Intent | undefined>;
  intent: Intent | undefined;
  isCreating: boolean;
  error: Error | null;
  errorMessage: string | undefined;
}

/** Creates intents through the application's backend and caches each one under its id. */
export function useCreateIntent<Input>(create: CreateIntent<Input>): CreateIntentResult<Input> {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: create,
    onSuccess: (intent) => queryClient.setQueryData(quickExchangeKeys.intent(intent.id), intent),
  });
  const { mutateAsync } = mutation;
  const createIntent = useCallback(
    (input: Input) => mutateAsync(input).catch(() => undefined),
    [mutateAsync],
  );
  return {
    createIntent,
    intent: mutation.data,
    isCreating: mutation.isPending,
    error: mutation.error,
    errorMessage: errorMessage(mutation.error),
  };
}

/** The order fulfilling an intent: the user buys its payout with `fundingCurrency`. */
export type IntentOrder = Pick<
  IntentToTradeInput,
  'intent_id' | 'side' | 'symbol' | 'currency' | 'quantity'
>;

/**
 * The intent_to_trade order of an intent. The intent fixes the quantity of one side; the funding
 * currency is the intent's when it fixes one, else the one the user chose.
 */
export function orderForIntent(intent: Intent, fundingCurrency?: string): IntentOrder {
  const payout = intent.payout_settlement;
  const funding = intent.funding_settlement;
  const fundWith = funding?.currency ?? fundingCurrency;
  if (!payout || fundWith === undefined) {
    throw new TypeError('The intent lets the user choose the funding currency: pass one');
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
