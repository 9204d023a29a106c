import { hasFlag } from '@exchange-kit/contract/state-tables';
import {
  missingInputs,
  type SettlementInstruction,
  type Transaction,
  type TransactionStatus,
} from '@exchange-kit/partner-client';
import type { UseMutationResult, UseQueryResult } from '@tanstack/react-query';
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { newClientRef } from './client-ref.js';
import { useSettlementCountdown } from './countdown.js';
import { errorMessage, isClientRefTaken, type QuickExchangeError } from './errors.js';
import { useQuickExchange } from './provider.js';
import {
  directions,
  fieldOf,
  type MethodChoice,
  type RequirementValue,
  type SettlementDirection,
  type SettlementRequirement,
  type TransactionOrder,
  useChooseMethod,
  useCreateTransaction,
  useRequote,
  useSubmitRequirement,
  useTransactionQuery,
} from './transaction-calls.js';

export type {
  MethodChoice,
  ParameterType,
  RequirementValue,
  SettlementDirection,
  SettlementMethod,
  SettlementRequirement,
  TransactionOrder,
} from './transaction-calls.js';

export interface TransactionOptions {
  /** The session from useUserSession; nothing is created before it is known. */
  sessionId: string | undefined;
  /**
   * Names the transaction within one session: however often creation is asked for (retries,
   * double clicks, re-renders, StrictMode's double effects, a remount), one client_ref is one
   * request at a time and one transaction. A reload or another tab opens another session, where
   * the same client_ref is refused (`clientRefTaken`): pass a new one there. Generated per hook
   * and session when left out, and drawn again by `startOver`.
   */
  clientRef?: string;
  /** Follow an existing transaction instead of creating one. */
  transactionId?: string;
  /** Created as soon as the session is known. Without it, call create.mutate(order). */
  order?: TransactionOrder;
  /** How often a PENDING transaction is polled, in ms. Default 2000. */
  pollIntervalMs?: number;
}

export interface TransactionFlow {
  clientRef: string;
  transactionId: string | undefined;
  /** TanStack's query result of the transaction (`data`, `status`, `refetch`, ...). */
  query: UseQueryResult<Transaction, QuickExchangeError>;
  transaction: Transaction | undefined;
  /** The transaction's own status (SETTLEMENT_METHOD_REQUIRED ... FILLED). */
  transactionStatus: TransactionStatus | undefined;
  funding: SettlementInstruction | undefined;
  payout: SettlementInstruction | undefined;
  /** Directions that have no settlement method yet. */
  methodsRequired: SettlementDirection[];
  /** What the instructions still require before the transaction can go on. */
  requirements: SettlementRequirement[];
  /** A terminal state of the transaction table (FILLED, CANCELLED): nothing more will happen. */
  isTerminal: boolean;
  /** When the first of the instructions expires, in Unix ms; undefined when none expires. */
  expiresAt: number | undefined;
  /** An instruction expired: the server refuses to settle on it until requote. */
  expired: boolean;
  /** Expired while the settlement can still change: requote gets fresh instructions. */
  canRequote: boolean;
  /** A call of the flow is under way. */
  isWorking: boolean;
  /** The error of the latest action, or of reading the transaction when that failed since. */
  error: QuickExchangeError | null;
  errorMessage: string | undefined;
  /**
   * Creation was refused because the client_ref already names another transaction: one started
   * in another session (before a reload, in another tab) or for another order. `errorMessage`
   * says so to the user; `startOver` (or a new `clientRef` of your own) is the way on.
   */
  clientRefTaken: boolean;
  /**
   * Leaves this flow's transaction and errors behind and starts a new purchase: a generated
   * client_ref is drawn again (a `clientRef` of your own stays: pass a new one), and with an
   * `order` the new transaction is created at once.
   */
  startOver: () => void;
  /** TanStack mutations: `mutate`, `mutateAsync` (which throws), `isPending`, `variables`, `reset`. */
  create: UseMutationResult<Transaction, QuickExchangeError, TransactionOrder>;
  chooseMethod: UseMutationResult<SettlementInstruction, QuickExchangeError, MethodChoice>;
  submit: UseMutationResult<SettlementInstruction, QuickExchangeError, RequirementValue>;
  requote: UseMutationResult<Transaction, QuickExchangeError, void>;
}

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

/** The instruction that expires first, the one whose expiry holds the transaction up. */
function firstToExpire(transaction: Transaction | undefined): SettlementInstruction | undefined {
  const expiring = [transaction?.funding_settlement, transaction?.payout_settlement].filter(
    (instruction): instruction is SettlementInstruction => instruction?.expires !== undefined,
  );
  return expiring.sort((a, b) => (a.expires?.unix_ms ?? 0) - (b.expires?.unix_ms ?? 0))[0];
}

/**
 * Drives a Quick Exchange transaction: intent_to_trade (with or without an intent_id), then the
 * settlement methods and the parameters they require, then polling until it ends. Follows the
 * session it is given: a transaction of an earlier session is left behind.
 */
export function useTransaction(options: TransactionOptions): TransactionFlow {
  const { sessionId, order, pollIntervalMs = 2_000 } = options;
  // A client_ref names one transaction of one session (the server refuses it from another), so
  // a generated one is generated per session.
  const generatedRefs = useRef(new Map<string | undefined, string>());
  const [, redraw] = useReducer((drawn: number) => drawn + 1, 0);
  let generatedRef = generatedRefs.current.get(sessionId);
  if (generatedRef === undefined) {
    generatedRef = newClientRef();
    generatedRefs.current.set(sessionId, generatedRef);
  }
  const clientRef = options.clientRef ?? generatedRef;

  const { sessions } = useQuickExchange();
  const create = useCreateTransaction({ sessionId, clientRef });
  // Made in this session: after a renewal the transaction of the old session is left behind.
  const created =
    create.data && sessions.sessionOf(create.data.transaction_id) === sessionId
      ? create.data
      : undefined;
  const transactionId = options.transactionId ?? created?.transaction_id;
  const query = useTransactionQuery(transactionId, { sessionId, pollIntervalMs });
  const transaction = transactionId === undefined ? undefined : query.data;
  const chooseMethod = useChooseMethod(transactionId, sessionId);
  const submit = useSubmitRequirement(transactionId, sessionId);
  const requote = useRequote(transaction, sessionId);

  const orderRef = useRef(order);
  orderRef.current = order;
  const { mutate } = create;
  const hasOrder = order !== undefined;
  const following = options.transactionId !== undefined;
  const hasCreated = created !== undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new client_ref (startOver, or the caller's own) asks for its transaction; mutate already sends it
  useEffect(() => {
    // The order as it is now; its identity changing (written inline) asks for nothing new.
    const toCreate = orderRef.current;
    if (hasOrder && toCreate && sessionId !== undefined && !following && !hasCreated) {
      mutate(toCreate);
    }
  }, [hasOrder, sessionId, following, hasCreated, mutate, clientRef]);

  const funding = transaction?.funding_settlement;
  const payout = transaction?.payout_settlement;
  const isTerminal =
    transaction !== undefined && hasFlag('transaction', transaction.status, 'terminal');
  const expiring = firstToExpire(transaction);
  const countdown = useSettlementCountdown(expiring);
  const expired = countdown.expired && !isTerminal;
  const changeable =
    transaction !== undefined &&
    !isTerminal &&
    !hasFlag('transaction', transaction.status, 'polled');

  // The error shown is that of the latest action, unless reading the status failed since.
  const actions = [create, chooseMethod, submit, requote];
  const [resetCreate, resetChoice, resetSubmit, resetRequote] = actions.map((a) => a.reset);
  const startOver = useCallback(() => {
    generatedRefs.current.set(sessionId, newClientRef());
    for (const reset of [resetCreate, resetChoice, resetSubmit, resetRequote]) reset?.();
    redraw();
  }, [sessionId, resetCreate, resetChoice, resetSubmit, resetRequote]);
  const latest = actions.reduce((a, b) => (b.submittedAt > a.submittedAt ? b : a));
  const error =
    query.error && query.errorUpdatedAt > latest.submittedAt ? query.error : latest.error;
  return {
    clientRef,
    transactionId,
    query,
    transaction,
    transactionStatus: transaction?.status,
    funding,
    payout,
    methodsRequired: transaction
      ? directions.filter((direction) => !transaction[fieldOf(direction)])
      : [],
    requirements: [...requirementsOf(funding), ...requirementsOf(payout)],
    isTerminal,
    expiresAt: expiring?.expires?.unix_ms,
    expired,
    canRequote: expired && changeable,
    isWorking: actions.some((action) => action.isPending) || query.isFetching,
    error,
    errorMessage: errorMessage(error),
    clientRefTaken: isClientRefTaken(create.error),
    startOver,
    create,
    chooseMethod,
    submit,
    requote,
  };
}
