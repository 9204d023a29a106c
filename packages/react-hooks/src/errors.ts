import type {
  AuthenticationError,
  CallError,
  NotFoundError,
  RateLimitedError,
  ResponseValidationError,
  TransportError,
  ValidationError,
} from '@exchange-kit/partner-client';

/** An action asked for before the flow allows it, as choosing a method before a transaction. */
export class QuickExchangeFlowError extends Error {
  override name = 'QuickExchangeFlowError';
}

/**
 * What the hooks' queries and mutations fail with: the typed errors of `@exchange-kit/core`
 * (a refusal of the server, a transport failure, an answer that breaks the spec), or an action
 * asked for too early.
 */
export type QuickExchangeError =
  | CallError
  | TransportError
  | ResponseValidationError
  | QuickExchangeFlowError;

/** Is this the refusal of a settlement call whose instructions expired (see useTransaction)? */
export function isExpiredQuote(error: unknown): boolean {
  return (
    named<ValidationError>(error, 'ValidationError') &&
    Object.values(error.fields).some((codes) => codes.includes('expired'))
  );
}

/**
 * Is this the refusal of a client_ref that already names another transaction: one of another
 * session (a reload or another tab opens a new session) or of this session for another order?
 * Creating again with the same client_ref is refused again; startOver (or a new clientRef) is
 * the way on.
 */
export function isClientRefTaken(error: unknown): boolean {
  return (
    named<ValidationError>(error, 'ValidationError') &&
    (error.fields.client_ref ?? []).includes('taken')
  );
}

// By name rather than instanceof: an application can end up with two copies of the core
// package, and the error still has to read well.
/**
 * The exchange could not be reached, took too long, or failed (a 5xx): a later attempt may
 * succeed where a refusal (a 4xx) would be answered the same way again.
 */
export const isExchangeUnavailable = (error: unknown): boolean =>
  named(error, 'TransportError') || named(error, 'ServerError');

const named = <E extends Error>(error: unknown, name: string): error is E =>
  error instanceof Error && error.name === name;

function serverMessage(body: unknown): string | undefined {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' && !/^validation failed/i.test(message)
    ? message
    : undefined;
}

const readable = (code: string) => code.replace(/[._]/g, ' ');

function fieldsMessage(fields: Readonly<Record<string, readonly string[]>>): string | undefined {
  const parts = Object.entries(fields).map(
    ([field, codes]) => `${readable(field)}: ${codes.map(readable).join(', ')}`,
  );
  return parts.length > 0 ? `Please check ${parts.join('; ')}.` : undefined;
}

/**
 * A sentence a user interface can show for an error of the hooks. The error itself stays the
 * typed error of `@exchange-kit/core` (ValidationError, NotFoundError, TransportError, ...),
 * whose own message names the call for logs.
 */
export function errorMessage(error: unknown): string | undefined {
  if (error === null || error === undefined) return undefined;
  if (isExpiredQuote(error)) return 'The price expired. Get a new price to continue.';
  if (isClientRefTaken(error)) {
    return 'This purchase was already started elsewhere, for example before the page was reloaded. Start a new one to continue.';
  }
  if (named<ValidationError>(error, 'ValidationError')) {
    return (
      serverMessage(error.body) ?? fieldsMessage(error.fields) ?? 'The request was not accepted.'
    );
  }
  if (named<NotFoundError>(error, 'NotFoundError')) {
    return serverMessage(error.body) ?? 'It could not be found; it may have expired.';
  }
  if (named<AuthenticationError>(error, 'AuthenticationError')) {
    return 'The exchange did not accept this request. Reload the page to start again.';
  }
  if (named<RateLimitedError>(error, 'RateLimitedError')) {
    return error.retryAfter === undefined
      ? 'Too many requests. Please wait a moment and try again.'
      : `Too many requests. Please try again in ${error.retryAfter} s.`;
  }
  if (named<TransportError>(error, 'TransportError')) {
    return error.reason === 'timeout'
      ? 'The exchange took too long to answer. Please try again.'
      : 'The exchange could not be reached. Check your connection and try again.';
  }
  if (named(error, 'ServerError')) return 'The exchange is unavailable. Please try again later.';
  if (named(error, 'ResponseValidationError')) return 'The exchange sent an unexpected answer.';
  return error instanceof Error ? error.message : String(error);
}
