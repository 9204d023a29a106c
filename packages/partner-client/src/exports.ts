export type { components, operations, paths } from '@exchange-kit/contract/partner';
export {
  AuthenticationError,
  type CallError,
  ExchangeKitError,
  type FieldErrors,
  type FieldErrorsOf,
  InvalidDecimalError,
  NotFoundError,
  type PerCallOptions,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  TransportError,
  UnexpectedStatusError,
  ValidationError,
} from '@exchange-kit/core';
export { expiresInMs, hasStatus, type MissingInput, missingInputs } from './instructions.js';
export type {
  Intent,
  IntentInput,
  IntentToTradeInput,
  ListTransactionsQuery,
  PartnerClient,
  PartnerClientOptions,
  PartnerTransaction,
  PartnerTransactionList,
  SessionClient,
  SessionCredentials,
  SessionInput,
  SettlementInstruction,
  SettlementMethodInput,
  SettlementParametersInput,
  Transaction,
  TransactionStatus,
  UserSession,
  WidgetInitialization,
} from './partner-client.js';
export { isValidationErrorOf } from './partner-client.js';
