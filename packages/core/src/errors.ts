/**
 * Every error exchange-kit throws extends ExchangeKitError. Errors that carry an HTTP answer
 * extend ApiError and narrow by `status`. No message ever holds a token or session secret,
 * nor a signed JWT: messages are built from the method, the path and the server's answer.
 */
export class ExchangeKitError extends Error {
  override name = 'ExchangeKitError';
}

/** A value given for a decimal field is not a finite decimal number. */
export class InvalidDecimalError extends ExchangeKitError {
  override name = 'InvalidDecimalError';

  constructor(
    /** Dotted path of the field, for example `order.quantity`. */
    readonly field: string,
    /** Why the value was refused. */
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/** Which call an error comes from. */
export interface RequestSummary {
  method: string;
  /** Path and query string, as signed. */
  path: string;
  operationId?: string;
}

export interface ApiErrorDetails {
  request: RequestSummary;
  /** The body of the answer: parsed JSON, or the text when it was not JSON. */
  body: unknown;
  headers: Headers;
}

function messageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim().slice(0, 200) || undefined;
  if (body && typeof body === 'object') {
    const { message, errors } = body as { message?: unknown; errors?: unknown };
    if (typeof message === 'string') return message;
    if (errors && typeof errors === 'object') {
      return Object.entries(errors as Record<string, unknown>)
        .map(
          ([field, codes]) =>
            `${field}: ${Array.isArray(codes) ? codes.join(', ') : String(codes)}`,
        )
        .join('; ');
    }
  }
  return undefined;
}

/** The server answered with an error status. */
export abstract class ApiError extends ExchangeKitError {
  abstract readonly status: number;
  readonly request: RequestSummary;
  readonly body: unknown;
  readonly headers: Headers;

  constructor(details: ApiErrorDetails, summary: string) {
    const said = messageOf(details.body);
    super(
      `${details.request.method} ${details.request.path}: ${summary}${said ? ` (${said})` : ''}`,
    );
    this.request = details.request;
    this.body = details.body;
    this.headers = details.headers;
  }
}

/** 400 or 422: the server refused the request's content. `fields` maps a field to its error codes. */
export class ValidationError extends ApiError {
  override name = 'ValidationError';
  readonly status: 400 | 422;
  readonly fields: Readonly<Record<string, readonly string[]>>;

  constructor(status: 400 | 422, details: ApiErrorDetails) {
    super(details, status === 400 ? 'bad request' : 'validation failed');
    this.status = status;
    const errors = (details.body as { errors?: unknown } | null)?.errors;
    this.fields =
      errors && typeof errors === 'object' && !Array.isArray(errors)
        ? Object.fromEntries(
            Object.entries(errors as Record<string, unknown>).map(([field, codes]) => [
              field,
              Array.isArray(codes) ? codes.map(String) : [String(codes)],
            ]),
          )
        : {};
  }
}

/** 401: the credentials were refused. The body may be plain text. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
  readonly status = 401 as const;

  constructor(details: ApiErrorDetails) {
    super(details, 'authentication failed');
  }
}

/** 404 on any call but the order calls below. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  readonly status = 404 as const;

  constructor(details: ApiErrorDetails) {
    super(details, 'not found');
  }
}

/** 404 on edit, update_tpsl or cancel: the order is not live (cancelled, filled, or unknown). */
export class OrderNotLiveError extends ApiError {
  override name = 'OrderNotLiveError';
  readonly status = 404 as const;

  constructor(details: ApiErrorDetails) {
    super(details, 'the order is not live');
  }
}

/** 429: too many calls. `retryAfter` is the wait the server asked for, in seconds, when it said. */
export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError';
  readonly status = 429 as const;
  readonly retryAfter: number | undefined;

  constructor(details: ApiErrorDetails) {
    super(details, 'rate limited');
    this.retryAfter = retryAfterSeconds(details.headers, details.body);
  }
}

type Enumerate<N extends number, Seen extends number[] = []> = Seen['length'] extends N
  ? Seen[number]
  : Enumerate<N, [...Seen, Seen['length']]>;
/** The integers from `From` up to but not including `To`. */
type Range<From extends number, To extends number> = Exclude<Enumerate<To>, Enumerate<From>>;

/** A 5xx status. */
export type ServerStatus = Range<500, 600>;
/** A 3xx or 4xx status that no other error class covers. */
export type UnexpectedStatus = Exclude<Range<300, 500>, 400 | 401 | 404 | 422 | 429>;

/** 5xx: the server failed. */
export class ServerError extends ApiError {
  override name = 'ServerError';
  readonly status: ServerStatus;

  constructor(status: ServerStatus, details: ApiErrorDetails) {
    super(details, `server answered ${status}`);
    this.status = status;
  }
}

/** A status the spec does not document for the call (403, 409, a redirect...). */
export class UnexpectedStatusError extends ApiError {
  override name = 'UnexpectedStatusError';
  readonly status: UnexpectedStatus;

  constructor(status: UnexpectedStatus, details: ApiErrorDetails) {
    super(details, `unexpected status ${status}`);
    this.status = status;
  }
}

/** The request never got an answer: network failure, timeout or abort. */
export class TransportError extends ExchangeKitError {
  override name = 'TransportError';

  constructor(
    readonly request: RequestSummary,
    readonly reason: 'network' | 'timeout' | 'aborted',
    options?: { cause?: unknown },
  ) {
    super(
      `${request.method} ${request.path}: ${reason === 'network' ? 'network error' : reason === 'timeout' ? 'timed out' : 'aborted'}`,
      options,
    );
  }
}

/** A field in which an order already placed differs from the one asked for. */
export interface OrderDifference {
  field: string;
  /** As the existing order has it. */
  existing: unknown;
  /** As the create asked for it, decimals canonical. */
  requested: unknown;
}

/**
 * A create carried a `client_order_id` that an order already holds, and that order is not the
 * one asked for: re-sending it would not be a retry but a second, different order.
 * `order` is the order that holds the id; `cause` is the server's refusal.
 */
export class ClientOrderIdConflictError<Order = unknown> extends ExchangeKitError {
  override name = 'ClientOrderIdConflictError';

  constructor(
    readonly clientOrderId: string,
    readonly order: Order,
    readonly differences: readonly OrderDifference[],
    options?: { cause?: unknown },
  ) {
    const id = (order as { id?: unknown } | null)?.id;
    const listed = differences
      .map((d) => `${d.field} ${JSON.stringify(d.existing)}, asked ${JSON.stringify(d.requested)}`)
      .join('; ');
    super(
      `client_order_id ${JSON.stringify(clientOrderId)} is already used by order ${String(id)}, which is another order (${listed})`,
      options,
    );
  }
}

/** One way a response differs from the spec, located by JSON pointer. */
export interface ResponseIssue {
  pointer: string;
  message: string;
}

/** The answer does not match what the spec documents for the call. */
export class ResponseValidationError extends ExchangeKitError {
  override name = 'ResponseValidationError';

  constructor(
    readonly request: RequestSummary,
    readonly status: number,
    readonly issues: readonly ResponseIssue[],
  ) {
    const first = issues
      .slice(0, 3)
      .map((issue) => `${issue.pointer || '/'}: ${issue.message}`)
      .join('; ');
    super(
      `${request.method} ${request.path}: response ${status} does not match the spec (${first})`,
    );
  }
}

/** Reads Retry-After (seconds or HTTP date), or the "retry after 300s" of the conventional message. */
export function retryAfterSeconds(headers: Headers, body?: unknown): number | undefined {
  const header = headers.get('retry-after');
  if (header) {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  }
  const said = messageOf(body);
  const match = said && /retry after (\d+)\s*s/i.exec(said);
  return match ? Number(match[1]) : undefined;
}

/** Every error a call can fail with after the server answered, discriminated by `status`. */
export type CallError =
  | ValidationError
  | AuthenticationError
  | NotFoundError
  | OrderNotLiveError
  | RateLimitedError
  | ServerError
  | UnexpectedStatusError;

/** The typed error of an error answer. */
export function errorFromResponse(
  status: number,
  details: ApiErrorDetails,
  options: { notFound?: 'order-not-live' } = {},
): CallError {
  switch (status) {
    case 400:
    case 422:
      return new ValidationError(status, details);
    case 401:
      return new AuthenticationError(details);
    case 404:
      return options.notFound === 'order-not-live'
        ? new OrderNotLiveError(details)
        : new NotFoundError(details);
    case 429:
      return new RateLimitedError(details);
    default:
      return status >= 500
        ? new ServerError(status as ServerStatus, details)
        : new UnexpectedStatusError(status as UnexpectedStatus, details);
  }
}
