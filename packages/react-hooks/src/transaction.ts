import { hasFlag } from '@exchange-kit/contract/state-tables';
import {
  type components,
  type IntentToTradeInput,
  missingInputs,
  type SettlementInstruction,
  type Transaction,
  type TransactionStatus,
} from '@exchange-kit/partner-client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { newClientRef } from './client-ref.js';
import { errorMessage } from './errors.js';
import { useQuickExchange } from './provider.js';
import { quickExchangeKeys } from './query-keys.js';

type Schemas = components['schemas'];
export type SettlementDirection = Schemas['SettlementDirection'];
export type SettlementMethod = Schemas['SettlementMethod'];
export type ParameterType = Schemas['ParameterType'];

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

export interface TransactionOptions {
  /** The session from useUserSession; nothing is created before it is known. */
  sessionId: string | undefined;
  /**
   * Names the transaction: however often creation is asked for (retries, re-renders, StrictMode's
   * double effects), one client_ref is one transaction. Keep it (for example the checkout id) to
   * find the same transaction after a reload. Generated once per hook when left out.
   */
  clientRef?: string;
  /** Follow an existing transaction instead of creating one. */
  transactionId?: string;
  /** Created as soon as the session is known. Without it, call create(). */
  order?: TransactionOrder;
  /** How often a PENDING transaction is polled, in ms. Default 2000. */
  pollIntervalMs?: number;
}

export interface TransactionResult {
  clientRef: string;
  transactionId: string | undefined;
  transaction: Transaction | undefined;
  status: TransactionStatus | undefined;
  funding: SettlementInstruction | undefined;
  payout: SettlementInstruction | undefined;
  /** Directions that have no settlement method yet. */
  methodsRequired: SettlementDirection[];
  /** What the instructions still require before the transaction can go on. */
  requirements: SettlementRequirement[];
  /** A terminal state of the transaction table (FILLED, CANCELLED): nothing more will happen. */
  isTerminal: boolean;
  /** A call the hook made is under way. */
  isWorking: boolean;
  error: Error | null;
  errorMessage: string | undefined;
  /** Each action resolves with its result, or undefined when it failed (see `error`). */
  create(order?: TransactionOrder): Promise<Transaction | undefined>;
  chooseMethod(choice: MethodChoice): Promise<SettlementInstruction | undefined>;
  submit(
    requirement: SettlementRequirement,
    value: string,
  ): Promise<SettlementInstruction | undefined>;
  /** Reads the transaction again now. */
  refresh(): Promise<void>;
}

const directions: readonly SettlementDirection[] = ['FUNDING', 'PAYOUT'];
const fieldOf = (direction: SettlementDirection) =>
  direction === 'FUNDING' ? 'funding_settlement' : 'payout_settlement';

function requirementsOf(instruction: SettlementInstruction | undefined): SettlementRequirement[] {
  if (!instruction) return [];
  return missingInputs(instruction).map(({ name, type }) => ({
    type,
    name,
    direction: instruction.direction,
    currency: instruction.currency,
    settlementInstructionId: instruction.settlement_instruction_id,
  }));
}

/**
 * Drives a Quick Exchange transaction: intent_to_trade (with or without an intent_id), then the
 * settlement methods and the parameters they require, then polling until it ends.
 */
export function useTransaction(options: TransactionOptions): TransactionResult {
  const { client } = useQuickExchange();
  const queryClient = useQueryClient();
  const { sessionId, order, pollIntervalMs = 2_000 } = options;
  const [generatedRef] = useState(newClientRef);
  const clientRef = options.clientRef ?? generatedRef;
  const [createdId, setCreatedId] = useState<string>();
  const transactionId = options.transactionId ?? createdId;
  const statusKey = quickExchangeKeys.transaction(transactionId ?? '');

  const status = useQuery({
    queryKey: statusKey,
    queryFn: () => client.transactions.status(transactionId as string),
    enabled: transactionId !== undefined,
    staleTime: 1_000,
    // Only a state flagged `polled` moves on by itself; the others wait for this user's input,
    // or nothing changes any more.
    refetchInterval: (query) => {
      const current = query.state.data?.status;
      return current && hasFlag('transaction', current, 'polled') ? pollIntervalMs : false;
    },
  });

  const creation = useMutation({
    mutationFn: (toCreate: TransactionOrder | undefined) => {
      if (sessionId === undefined) throw new Error('There is no session yet.');
      if (toCreate === undefined) throw new TypeError('create() needs an order');
      // One request per client_ref even when asked twice at once; the server answers a repeated
      // client_ref with the transaction it already made, so a later retry is safe as well.
      return queryClient.fetchQuery({
        queryKey: quickExchangeKeys.transactionCreation(clientRef),
        queryFn: () =>
          client.transactions.create({ ...toCreate, session_id: sessionId, client_ref: clientRef }),
        staleTime: Number.POSITIVE_INFINITY,
      });
    },
    onSuccess: (transaction) => {
      queryClient.setQueryData(
        quickExchangeKeys.transaction(transaction.transaction_id),
        transaction,
      );
      setCreatedId(transaction.transaction_id);
    },
  });

  const afterChange = async (instruction: SettlementInstruction) => {
    const key = quickExchangeKeys.transaction(instruction.transaction_id);
    queryClient.setQueryData<Transaction>(
      key,
      (transaction) =>
        transaction && { ...transaction, [fieldOf(instruction.direction)]: instruction },
    );
    // The instruction alone does not tell the transaction's new status.
    await queryClient.invalidateQueries({ queryKey: key });
  };

  const methodChoice = useMutation({
    mutationFn: (choice: MethodChoice) => {
      if (transactionId === undefined) throw new Error('There is no transaction yet.');
      return client.transactions.setMethod({
        transaction_id: transactionId,
        direction: choice.direction,
        method: choice.method,
        ...(choice.inputParameters ? { input_parameters: choice.inputParameters } : {}),
      });
    },
    onSuccess: afterChange,
  });

  const submission = useMutation({
    mutationFn: ({ requirement, value }: { requirement: SettlementRequirement; value: string }) =>
      client.transactions.setParameters({
        settlement_instruction_id: requirement.settlementInstructionId,
        input_parameters: { [requirement.name]: { type: requirement.type, value } },
      }),
    onSuccess: afterChange,
  });

  const orderRef = useRef(order);
  orderRef.current = order;
  const { mutateAsync: createAsync } = creation;
  const create = useCallback(
    (toCreate?: TransactionOrder) =>
      createAsync(toCreate ?? orderRef.current).catch(() => undefined),
    [createAsync],
  );
  const hasOrder = order !== undefined;
  useEffect(() => {
    if (hasOrder && sessionId !== undefined && options.transactionId === undefined) void create();
  }, [hasOrder, sessionId, options.transactionId, create]);

  const { mutateAsync: chooseAsync } = methodChoice;
  const chooseMethod = useCallback(
    (choice: MethodChoice) => chooseAsync(choice).catch(() => undefined),
    [chooseAsync],
  );
  const { mutateAsync: submitAsync } = submission;
  const submit = useCallback(
    (requirement: SettlementRequirement, value: string) =>
      submitAsync({ requirement, value }).catch(() => undefined),
    [submitAsync],
  );
  const { refetch } = status;
  const refresh = useCallback(async () => {
    await refetch();
  }, [refetch]);

  const transaction = transactionId === undefined ? undefined : status.data;
  const funding = transaction?.funding_settlement;
  const payout = transaction?.payout_settlement;
  // The error shown is that of the latest action, unless reading the status failed since.
  const latest = [creation, methodChoice, submission].reduce((a, b) =>
    b.submittedAt > a.submittedAt ? b : a,
  );
  const error =
    status.error && status.errorUpdatedAt > latest.submittedAt ? status.error : latest.error;
  return {
    clientRef,
    transactionId,
    transaction,
    status: transaction?.status,
    funding,
    payout,
    methodsRequired: transaction
      ? directions.filter((direction) => !transaction[fieldOf(direction)])
      : [],
    requirements: [...requirementsOf(funding), ...requirementsOf(payout)],
    isTerminal: transaction !== undefined && hasFlag('transaction', transaction.status, 'terminal'),
    isWorking:
      creation.isPending || methodChoice.isPending || submission.isPending || status.isFetching,
    error,
    errorMessage: errorMessage(error),
    create,
    chooseMethod,
    submit,
    refresh,
  };
}
