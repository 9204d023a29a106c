export { type SettlementCountdown, useSettlementCountdown } from './countdown.js';
export { errorMessage } from './errors.js';
export {
  type CreateIntent,
  type CreateIntentResult,
  type IntentOrder,
  type IntentResult,
  type LoadIntent,
  orderForIntent,
  useCreateIntent,
  useIntent,
} from './intent.js';
export {
  type QuickExchangeConfig,
  QuickExchangeProvider,
  type QuickExchangeProviderProps,
  useQuickExchange,
} from './provider.js';
export { quickExchangeKeys } from './query-keys.js';
export {
  type QuickExchangeSession,
  type UserSessionOptions,
  type UserSessionResult,
  useUserSession,
} from './session.js';
export {
  type MethodChoice,
  type ParameterType,
  type SettlementDirection,
  type SettlementMethod,
  type SettlementRequirement,
  type TransactionOptions,
  type TransactionOrder,
  type TransactionResult,
  useTransaction,
} from './transaction.js';
export {
  useWidgetInitialization,
  type WidgetInitialization,
  type WidgetOptions,
  widgetInitialization,
} from './widget.js';
