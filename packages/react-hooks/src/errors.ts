import type {
  AuthenticationError,
  NotFoundError,
  RateLimitedError,
  TransportError,
  ValidationError,
} from '@exchange-kit/partner-client';

// By name rather than instanceof: an application can end up with two copies of the core
// package, and the error still has to read well.
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
