/**
 * The transaction's query and its actions, one TanStack hook each; useTransaction composes
 * them into the whole flow.
 */
import type {
  components,
  IntentToTradeInput,
  ParameterType,
  SettlementDirection,
  SettlementInstruction,
  SettlementMethod,
  Transaction,
} from '@exchange-kit/partner-client';
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
import { type QuickExchangeError, QuickExchangeFlowError } from './errors.js';
import { type QuickExchange, useQuickExchange } from './provider.js';
import {
  noTransactionQueryOptions,
  type TransactionQueryInput,
  transactionQueryOptions,
} from './queries.js';
import { quickExchangeKeys } from './query-keys.js';
import type { QueryOverrides } from './query-overrides.js';

type Schemas = components['schemas'];

export type { ParameterType, SettlementDirection, SettlementMethod };

/** What the user orders: intent_to_trade without the session and client_ref the hook supplies. */
export type TransactionOrder = Omit<IntentToTradeInput, 'session_id' | 'client_ref'>;

/**
 * A parameter an instruction still requires, discriminated by its type: a WALLET_ADDRESS (where
 * the payout goes) or a SIGNED_RAW_TRANSACTION (the funding the service broadcasts).
 */
export type SettlementRequirement = {
  [T in ParameterType]: {
    type: T;
    /** The parameter's name on the instruction, for example account_key. */
    name: string;
    direction: SettlementDirection;
    currency: string;
    settlementInstructionId: string;
  };
}[ParameterType];

export interface MethodChoice {
  direction: SettlementDirection;
  method: SettlementMethod;
  /** Parameters the method needs, when they are known already. */
  inputParameters?: Schemas['InputParameters'];
}

/** A value for a requirement: the variables of useSubmitRequirement. */
export interface RequirementValue {
  requirement: SettlementRequirement;
  value: string;
}

export const directions: readonly SettlementDirection[] = ['FUNDING', 'PAYOUT'];
export const fieldOf = (direction: SettlementDirection) =>
  direction === 'FUNDING' ? 'funding_settlement' : 'payout_settlement';

/** The client of the session that made the transaction, else of `sessionId`. */
function clientOf(quickExchange: QuickExchange, transactionId?: string, sessionId?: string) {
  const { sessions } = quickExchange;
  return sessions.clientFor(
    (transactionId === undefined ? undefined : sessions.sessionOf(transactionId)) ?? sessionId,
  );
}

/**
 * A transaction with its instructions, polled while PENDING: TanStack's query result. Without
 * an id nothing is fetched and nothing is left in the cache.
 */
export function useTransactionQuery<TData = Transaction>(
  transactionId: string | undefined,
  input: TransactionQueryInput = {},
  query: QueryOverrides<Transaction, QuickExchangeError, TData> = {},
): UseQueryResult<TData, QuickExchangeError> {
  const quickExchange = useQuickExchange();
  const options =
    transactionId === undefined
      ? noTransactionQueryOptions()
      : transactionQueryOptions(quickExchange, transactionId, input);
  return useQuery({ ...options, ...query } as UseQueryOptions<
    Transaction,
    QuickExchangeError,
    TData,
    QueryKey
  >);
}

/** useTransactionQuery for a Suspense boundary: `data` is the transaction. */
export function useSuspenseTransactionQuery(
  transactionId: string,
  input: TransactionQueryInput = {},
): UseSuspenseQueryResult<Transaction, QuickExchangeError> {
  const quickExchange = useQuickExchange();
  return useSuspenseQuery(transactionQueryOptions(quickExchange, transactionId, input));
}

/**
 * intent_to_trade for a session, named by `clientRef`: however often it is asked for (retries,
 * double clicks, StrictMode's double effects) one client_ref is one request at a time and one
 * transaction, which the server also answers a repeated client_ref with.
 */
export function useCreateTransaction(options: {
  sessionId: string | undefined;
  clientRef: string;
}): UseMutationResult<Transaction, QuickExchangeError, TransactionOrder> {
  const quickExchange = useQuickExchange();
  const queryClient = useQueryClient();
  const { sessionId, clientRef } = options;
  return useMutation({
    mutationFn: (order: TransactionOrder) => {
      if (sessionId === undefined) throw new QuickExchangeFlowError('There is no session yet.');
      return queryClient.fetchQuery({
        queryKey: quickExchangeKeys.transactionCreation(clientRef, sessionId),
        queryFn: () =>
          quickExchange.sessions
            .clientFor(sessionId)
            .transactions.create({ ...order, session_id: sessionId, client_ref: clientRef }),
        staleTime: Number.POSITIVE_INFINITY,
        retry: false,
      });
    },
    onSuccess: (transaction) => {
      if (sessionId !== undefined) {
        quickExchange.sessions.remember(transaction.transaction_id, sessionId);
      }
      queryClient.setQueryData(
        quickExchangeKeys.transaction(transaction.transaction_id),
        transaction,
      );
    },
  });
}

/** Puts a changed instruction into its transaction, then reads the transaction's new status. */
function useAfterChange() {
  const queryClient = useQueryClient();
  return async (instruction: SettlementInstruction) => {
    const key = quickExchangeKeys.transaction(instruction.transaction_id);
    queryClient.setQueryData<Transaction>(
      key,
      (transaction) =>
        transaction && { ...transaction, [fieldOf(instruction.direction)]: instruction },
    );
    await queryClient.invalidateQueries({ queryKey: key });
  };
}

/**
 * Sends a settlement change once while it is in flight: the same change asked again (a double
 * click) joins the request under way instead of sending a second, which the server would refuse
 * once the first moved the transaction on. Asked again after it ended, it is sent again.
 */
function useJoinedChange() {
  const queryClient = useQueryClient();
  return <T>(transactionId: string, change: object, send: () => Promise<T>) =>
    queryClient.fetchQuery({
      queryKey: quickExchangeKeys.settlementChange(transactionId, change),
      queryFn: send,
      staleTime: 0,
      gcTime: 0,
      retry: false,
    });
}

/**
 * Chooses how one side of the transaction is funded or paid out. The same choice made again
 * while it is in flight joins the request under way.
 */
export function useChooseMethod(
  transactionId: string | undefined,
  sessionId?: string,
): UseMutationResult<SettlementInstruction, QuickExchangeError, MethodChoice> {
  const quickExchange = useQuickExchange();
  const afterChange = useAfterChange();
  const joined = useJoinedChange();
  return useMutation({
    mutationFn: (choice: MethodChoice) => {
      if (transactionId === undefined) {
        throw new QuickExchangeFlowError('There is no transaction yet.');
      }
      return joined(transactionId, choice, () =>
        clientOf(quickExchange, transactionId, sessionId).transactions.setMethod({
          transaction_id: transactionId,
          direction: choice.direction,
          method: choice.method,
          ...(choice.inputParameters ? { input_parameters: choice.inputParameters } : {}),
        }),
      );
    },
    onSuccess: afterChange,
  });
}

/**
 * Supplies what an instruction still requires: a wallet address, a signed transaction. The same
 * value submitted again while it is in flight joins the request under way.
 */
export function useSubmitRequirement(
  transactionId: string | undefined,
  sessionId?: string,
): UseMutationResult<SettlementInstruction, QuickExchangeError, RequirementValue> {
  const quickExchange = useQuickExchange();
  const afterChange = useAfterChange();
  const joined = useJoinedChange();
  return useMutation({
    mutationFn: (change: RequirementValue) => {
      const { requirement, value } = change;
      return joined(transactionId ?? requirement.settlementInstructionId, change, () =>
        clientOf(quickExchange, transactionId, sessionId).transactions.setParameters({
          settlement_instruction_id: requirement.settlementInstructionId,
          input_parameters: { [requirement.name]: { type: requirement.type, value } },
        }),
      );
    },
    onSuccess: afterChange,
  });
}

/**
 * Gets fresh instructions for a transaction whose instructions expired: each method is set
 * again, with the input already given, which prices it from a new quote. Resolves with the
 * transaction read afterwards.
 */
export function useRequote(
  transaction: Transaction | undefined,
  sessionId?: string,
): UseMutationResult<Transaction, QuickExchangeError, void> {
  const quickExchange = useQuickExchange();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      if (!transaction) throw new QuickExchangeFlowError('There is no transaction yet.');
      const id = transaction.transaction_id;
      const client = clientOf(quickExchange, id, sessionId);
      for (const direction of directions) {
        const instruction = transaction[fieldOf(direction)];
        if (!instruction) continue;
        const given = instruction.received_input;
        await client.transactions.setMethod({
          transaction_id: id,
          direction,
          method: instruction.method,
          ...(Object.keys(given).length > 0 ? { input_parameters: given } : {}),
        });
      }
      return queryClient.fetchQuery({
        ...transactionQueryOptions(quickExchange, id, { sessionId }),
        staleTime: 0,
      });
    },
  });
}
