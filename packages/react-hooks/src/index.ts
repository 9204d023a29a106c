// The partner interface's types a page of hooks handles, so it needs no second package.
export type {
  Intent,
  IntentToTradeInput,
  SettlementInstruction,
  Transaction,
  TransactionStatus,
  UserSession,
} from '@exchange-kit/partner-client';
export { type SettlementCountdown, useSettlementCountdown } from './countdown.js';
export {
  errorMessage,
  isClientRefTaken,
  isExpiredQuote,
  type QuickExchangeError,
  QuickExchangeFlowError,
} from './errors.js';
export {
  type CreateIntent,
  type IntentOrder,
  orderForIntent,
  useCreateIntent,
  useIntent,
  useSuspenseIntent,
} from './intent.js';
export {
  createQuickExchange,
  type QuickExchange,
  type QuickExchangeConfig,
  QuickExchangeProvider,
  type QuickExchangeProviderProps,
  useQuickExchange,
} from './provider.js';
export {
  intentQueryOptions,
  type LoadIntent,
  type SessionQueryInput,
  sessionQueryOptions,
  type TransactionQueryInput,
  transactionQueryOptions,
} from './queries.js';
export { quickExchangeKeys } from './query-keys.js';
export type { QueryOverrides } from './query-overrides.js';
export {
  type QuickExchangeSession,
  type UserSessionOptions,
  useRenewSession,
  useSuspenseUserSession,
  useUserSession,
} from './session.js';
export type { SessionCalls, SessionKeeper } from './session-keeper.js';
export {
  type MethodChoice,
  type ParameterType,
  type RequirementValue,
  type SettlementDirection,
  type SettlementMethod,
  type SettlementRequirement,
  type TransactionFlow,
  type TransactionOptions,
  type TransactionOrder,
  useTransaction,
} from './transaction.js';
export {
  useChooseMethod,
  useCreateTransaction,
  useRequote,
  useSubmitRequirement,
  useSuspenseTransactionQuery,
  useTransactionQuery,
} from './transaction-calls.js';
export {
  useWidgetInitialization,
  type WidgetInitialization,
  type WidgetOptions,
  widgetInitialization,
} from './widget.js';
