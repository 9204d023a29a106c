import type { components } from '@exchange-kit/contract/common';

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
  operationId?: string | undefined;
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
    const entries =
      errors && typeof errors === 'object'
        ? Object.entries(errors as Record<string, unknown>).map(
            ([field, codes]) =>
              [field, Array.isArray(codes) ? codes.map(String) : [String(codes)]] as const,
          )
        : [];
    const fields = entries.map(([field, codes]) => `${field}: ${codes.join(', ')}`).join('; ');
    if (typeof message !== 'string') return fields || undefined;
    // The partner interface says `Invalid body` and names the field only in `errors`; a message
    // that already names every field and code is not followed by them again.
    const named = entries.every(
      ([field, codes]) => message.includes(field) && codes.every((code) => message.includes(code)),
    );
    return fields && !named ? `${message}: ${fields}` : message;
  }
  return undefined;
}

/** The server answered with an error status. */
export abstract class ApiError extends ExchangeKitError {
  abstract readonly status: number;
  readonly request: RequestSummary;
  readonly body: unknown;
  readonly headers: Headers;

  constructor(details: ApiErrorDetails, summary: string, afterwards = '') {
    const said = messageOf(details.body);
    // A server's message that holds the summary's words says it already.
    const told =
      said?.toLowerCase().includes(summary) === true
        ? said
        : `${summary}${said ? ` (${said})` : ''}`;
    super(`${details.request.method} ${details.request.path}: ${told}${afterwards}`);
    this.request = details.request;
    this.body = details.body;
    this.headers = details.headers;
  }
}

/** Error codes by field, as a 400 or 422 body carries them. */
export type FieldErrors = Readonly<Record<string, readonly string[]>>;

/**
 * The fields and codes an operation's 422 may carry, from its `errorCodes` in the generated
 * operations table: `FieldErrorsOf<typeof operationTable.createOrder>`.
 */
export type FieldErrorsOf<Operation extends { readonly errorCodes: object }> = {
  readonly [Field in keyof Operation['errorCodes']]?: readonly (Operation['errorCodes'][Field] extends readonly (infer Code)[]
    ? Code
    : never)[];
};

/**
 * 400 or 422: the server refused the request's content. `fields` maps a field to its error
 * codes; narrowed to one operation's (by the clients' `isValidationErrorOf`) it holds the
 * fields and codes the spec documents for it.
 */
export class ValidationError<Fields extends object = FieldErrors> extends ApiError {
  override name = 'ValidationError';
  readonly status: 400 | 422;
  readonly fields: Fields;

  constructor(status: 400 | 422, details: ApiErrorDetails) {
    super(details, status === 400 ? 'bad request' : 'validation failed');
    this.status = status;
    this.fields = fieldErrorsOf(details.body) as Fields;
  }
}

/** The `errors` of an error body, each field's codes as strings; empty when it has none. */
function fieldErrorsOf(body: unknown): FieldErrors {
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (!errors || typeof errors !== 'object' || Array.isArray(errors)) return {};
  return Object.fromEntries(
    Object.entries(errors as Record<string, unknown>).map(([field, codes]) => [
      field,
      Array.isArray(codes) ? codes.map(String) : [String(codes)],
    ]),
  );
}

/**
 * What a refused call through an OAuth request may mean: the server answers it as it answers a
 * wrong secret, so the message offers both.
 */
const delegatedCauses = [
  'the OAuth request may not be approved yet',
  'the token id or secret may be wrong',
];

/**
 * What a refused call of a user session may mean: a server may require the session's Bearer
 * JWT on calls that others take without it.
 */
const sessionCauses = [
  "a server that requires the session's Bearer JWT refuses a call made without it: make the call through forSession(session)",
  'a call made through forSession is refused the same way when its session id or secret is wrong',
];

const causesBySigning: Readonly<Record<string, readonly string[]>> = {
  OAuthDelegatedPayload: delegatedCauses,
  SessionAuthPayload: sessionCauses,
};

/**
 * 401: the credentials were refused. The body may be plain text. The server gives one answer
 * for most refusals, so for a call through an OAuth request or of a user session
 * `possibleCauses` lists what it may mean. A refusal that names why an OAuth request does not
 * act for its user is one of the `OAuthRequestRefusedError` classes instead.
 */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
  readonly status = 401 as const;
  readonly possibleCauses: readonly string[];

  constructor(
    details: ApiErrorDetails,
    signing?: string | null,
    summary = 'authentication failed',
  ) {
    // A nonce refusal says what it is already.
    const causes =
      (messageOf(details.body) !== 'Nonce is too small' && causesBySigning[signing ?? '']) || [];
    super(details, summary, causes[0] ? `; possible causes: ${causes.join('; ')}` : '');
    this.possibleCauses = causes;
  }
}

/** Why the ids of an OAuth request do not act for its user, as the spec names it. */
export type OAuthRequestRefusalCode = components['schemas']['OAuthRequestRefusalCode'];

/**
 * 401 of a call through an OAuth request of the signing token that does not act for the user,
 * the server naming why (`reason`). Each reason has its class: wait on
 * `OAuthRequestPendingError`, give up on `OAuthRequestDeniedError` and
 * `OAuthRequestExpiredError` (a new request asks again).
 */
export abstract class OAuthRequestRefusedError extends AuthenticationError {
  abstract readonly reason: OAuthRequestRefusalCode;
}

/** The user has not answered the OAuth request yet: ask again later. */
export class OAuthRequestPendingError extends OAuthRequestRefusedError {
  override name = 'OAuthRequestPendingError';
  readonly reason = 'pending' as const;

  constructor(details: ApiErrorDetails) {
    super(details, null, 'the OAuth request is not approved yet');
  }
}

/** The user denied the OAuth request: it is closed for good. */
export class OAuthRequestDeniedError extends OAuthRequestRefusedError {
  override name = 'OAuthRequestDeniedError';
  readonly reason = 'denied' as const;

  constructor(details: ApiErrorDetails) {
    super(details, null, 'the user denied the OAuth request');
  }
}

/** The OAuth request expired, answered or not. */
export class OAuthRequestExpiredError extends OAuthRequestRefusedError {
  override name = 'OAuthRequestExpiredError';
  readonly reason = 'expired' as const;

  constructor(details: ApiErrorDetails) {
    super(details, null, 'the OAuth request expired');
  }
}

// Keyed by the spec's codes: a code added to the spec does not compile until it has a class.
const refusalClasses: Record<
  OAuthRequestRefusalCode,
  new (
    details: ApiErrorDetails,
  ) => OAuthRequestRefusedError
> = {
  pending: OAuthRequestPendingError,
  denied: OAuthRequestDeniedError,
  expired: OAuthRequestExpiredError,
};

/**
 * The refusal a 401 of the exchange names (`{"errors": {"oauth_request_public_id": ["denied"]}}`),
 * if any: the exchange client hands it to its API as `unauthorized`, so a client of another
 * interface (and the browser bundles built on it) carries none of it.
 */
export function oauthRequestRefusal(
  details: ApiErrorDetails,
): OAuthRequestRefusedError | undefined {
  const code = fieldErrorsOf(details.body).oauth_request_public_id?.[0];
  if (code === undefined || !Object.hasOwn(refusalClasses, code)) return undefined;
  return new refusalClasses[code as OAuthRequestRefusalCode](details);
}

/**
 * 404 on any call but the order calls below. `fields` names what was not found when the body
 * says (the partner interface's `{"errors": {"intent_id": ["not_found"]}}`); empty otherwise.
 */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  readonly status = 404 as const;
  readonly fields: FieldErrors;

  constructor(details: ApiErrorDetails) {
    super(details, 'not found');
    this.fields = fieldErrorsOf(details.body);
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

interface SystemError {
  code?: unknown;
  message?: unknown;
  errors?: unknown;
  cause?: unknown;
}

const openSslError = /[0-9A-F]{8,}:error:[0-9A-F]+:[^:]*:[^:]*:([^:]+):.*$/s;

/**
 * What went wrong on the wire, as Node's system errors say it: `connect ECONNREFUSED
 * 127.0.0.1:4000`. fetch wraps them (`fetch failed`, its cause the socket's error), and a host
 * name with several addresses fails with an AggregateError of one error per address.
 */
export function describeNetworkFailure(failure: unknown): string | undefined {
  const { code, message, errors, cause } = (failure ?? {}) as SystemError;
  if (Array.isArray(errors) && errors.length > 0) {
    return errors.map(describeNetworkFailure).join(', ');
  }
  if (cause) return describeNetworkFailure(cause);
  const text = typeof message === 'string' ? message.trim() : '';
  // OpenSSL's `<id>:error:<code>:<library>:<function>:<reason>:<file>:<line>:` says it in <reason>.
  const said = text.replace(openSslError, '$1');
  return code && !said.includes(String(code)) ? `${code} ${said}` : said || undefined;
}

/** The request never got an answer: network failure, timeout or abort. */
export class TransportError extends ExchangeKitError {
  override name = 'TransportError';

  constructor(
    readonly request: RequestSummary,
    readonly reason: 'network' | 'timeout' | 'aborted',
    options?: { cause?: unknown },
  ) {
    const what =
      reason === 'network' ? 'network error' : reason === 'timeout' ? 'timed out' : 'aborted';
    const why = reason === 'network' && describeNetworkFailure(options?.cause);
    super(`${request.method} ${request.path}: ${what}${why ? ` (${why})` : ''}`, options);
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
    const fields = differences.map((difference) => difference.field).join(', ');
    super(
      `client_order_id ${clientOrderId} is already used by order ${(order as { id?: unknown })?.id}, which differs in ${fields}`,
      options,
    );
  }
}

/** One way a response differs from the spec, located by JSON pointer. */
export interface ResponseIssue {
  pointer: string;
  message: string;
  /** What the spec documents there: a type, the allowed values. Set on every issue the clients report. */
  expected?: string;
  /** What came, as JSON, cut short; `nothing` for a missing field, `[redacted]` for a secret. */
  received?: string;
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
      .map(
        (issue) =>
          `${issue.pointer || '/'}: ${issue.expected ? `expected ${issue.expected}, received ${issue.received}` : issue.message}`,
      )
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

/** What a client's operations table says of each operation's 422: its fields and codes. */
export type ValidationErrorTable = {
  readonly [operationId: string]: { readonly errorCodes: object };
};

/**
 * A type guard for a client's operations table: is this the 422 of that operation, its
 * `fields` narrowed to the fields and codes the spec documents for it. An interface, so an
 * editor shows its name and the table's rather than the whole table.
 */
export type ValidationErrorGuard<Table extends ValidationErrorTable> = <
  OperationId extends keyof Table & string,
>(
  error: unknown,
  operationId: OperationId,
) => error is ValidationError<FieldErrorsOf<Table[OperationId]>> & { readonly status: 422 };

export function validationErrorGuard<
  Table extends ValidationErrorTable,
>(): ValidationErrorGuard<Table> {
  return <OperationId extends keyof Table & string>(
    error: unknown,
    operationId: OperationId,
  ): error is ValidationError<FieldErrorsOf<Table[OperationId]>> & { readonly status: 422 } =>
    error instanceof ValidationError &&
    error.status === 422 &&
    error.request.operationId === operationId;
}

/** The typed error of an error answer. */
export function errorFromResponse(
  status: number,
  details: ApiErrorDetails,
  options: {
    notFound?: 'order-not-live' | undefined;
    /** How the call was signed (the table's `authPayload`), for what a 401 may mean. */
    authPayload?: string | null | undefined;
    /** The more precise error a 401 of this interface may name, `oauthRequestRefusal`. */
    unauthorized?: ((details: ApiErrorDetails) => CallError | undefined) | undefined;
  } = {},
): CallError {
  switch (status) {
    case 400:
    case 422:
      return new ValidationError(status, details);
    case 401:
      return (
        options.unauthorized?.(details) ?? new AuthenticationError(details, options.authPayload)
      );
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
