import type { ApiName } from '@exchange-kit/contract/documents';
import { DomainError, Forbidden, NotAuthenticated, NotFound, Refusal } from '../handling/errors.js';
import type { Reply } from '../handling/operation.js';

/**
 * A refusal of the HTTP edge itself (a body it cannot read, a request the schemas refuse),
 * answered with `status`. `errors` gives the field-keyed shape `{errors: {field: [code]}}`,
 * otherwise `{message}`.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, string[]>,
  ) {
    super(message);
  }
}

/** How each kind of domain error is answered. */
const domainStatuses: [new (...args: never[]) => DomainError, number][] = [
  [Refusal, 422],
  [NotFound, 404],
  [NotAuthenticated, 401],
  [Forbidden, 403],
];

/** A domain error or an edge refusal as the HTTP answer it gets; undefined for anything else. */
export function asHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (!(error instanceof DomainError)) return undefined;
  const status = domainStatuses.find(([kind]) => error instanceof kind)?.[1] ?? 422;
  return new HttpError(status, error.message, error.errors);
}

/**
 * A refusal in the error shape its interface documents: the exchange's `{errors}` or
 * `{message}`, or the Quick Exchange envelope `{success: false, message, errors?}`.
 */
export function errorReply(error: HttpError, api: ApiName = 'exchange'): Reply {
  if (api === 'partner') {
    return {
      status: error.status,
      body: {
        success: false,
        message: error.message,
        ...(error.errors ? { errors: error.errors } : {}),
      },
    };
  }
  return {
    status: error.status,
    body: error.errors ? { errors: error.errors } : { message: error.message },
  };
}
