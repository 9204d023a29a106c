/** Everything but signing, which lives in `@exchange-kit/core/auth` so browser bundles stay free of it. */
export { type DecimalInput, type DecimalObject, toDecimalString } from './decimal/canonical.js';
export { type DecimalPlan, normaliseDecimals } from './decimal/normalise.js';
export {
  ApiError,
  type ApiErrorDetails,
  AuthenticationError,
  type CallError,
  ClientOrderIdConflictError,
  describeNetworkFailure,
  ExchangeKitError,
  errorFromResponse,
  type FieldErrors,
  type FieldErrorsOf,
  InvalidDecimalError,
  NotFoundError,
  type OrderDifference,
  OrderNotLiveError,
  RateLimitedError,
  type RequestSummary,
  type ResponseIssue,
  ResponseValidationError,
  retryAfterSeconds,
  ServerError,
  type ServerStatus,
  TransportError,
  type UnexpectedStatus,
  UnexpectedStatusError,
  ValidationError,
  validationErrorGuard,
} from './errors.js';
export { AttemptHeaders } from './http/attempt-headers.js';
export {
  type Api,
  type ApiClientConfig,
  type Call,
  type CallData,
  type CallInput,
  type ClientOperation,
  type ConnectionOptions,
  createApi,
  createApiClient,
  encodeDecimals,
  type PerCallOptions,
  unwrap,
  type WithDecimalInputs,
} from './http/client.js';
export {
  type DecodeOptions,
  decodeBody,
  decodingMiddleware,
  type OperationInfo,
  type OperationTable,
  type ResponseSchema,
  type SchemaIssue,
  type SchemaLoader,
} from './http/decode.js';
export { defaultRateLimit, type RateLimit } from './http/rate-limiter.js';
export type { Answer, Outgoing, Send } from './http/send.js';
export {
  type AttemptRequest,
  type Authenticate,
  type CallRequest,
  createSender,
  createTransport,
  isNonceRefusal,
  type RequestEvent,
  type ResponseEvent,
  type RetryEvent,
  type RetryOptions,
  requestOf,
  type Sender,
  type SignOptions,
  type Transport,
  type TransportHooks,
  type TransportOptions,
  transportOf,
} from './http/transport.js';
export { parseJson } from './json/parse.js';
