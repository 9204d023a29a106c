/**
 * The contract between the HTTP layer (routing, validation, authentication) and the
 * domain modules (src/exchange, src/partner). The HTTP layer matches a request to an
 * operation of the specs, validates it against the operation's generated schema,
 * authenticates it, opens one database transaction, and calls the operation's handler.
 */
import type { Journal } from '../exchange/journal.js';
import type { Queryable } from '../store/database.js';

/** Who made the call, as established by authentication. */
export type Caller =
  /** No credentials (public endpoints, session creation, unauthenticated partner calls). */
  | { kind: 'anonymous' }
  /** X-Service-Auth with one's own API token. */
  | { kind: 'token'; tokenId: string; userId: number }
  /** X-Service-Auth with the OAuth ids of an approved request: the call acts for `userId`. */
  | { kind: 'oauth'; tokenId: string; appUserId: number; userId: number; oauthRequestId: string }
  /** X-Service-Auth partner payload (path /realtime): the token owns partner application `partnerId`. */
  | { kind: 'partner'; tokenId: string; userId: number; partnerId: number }
  /** Authorization: Bearer session JWT signed with the session secret. */
  | { kind: 'session'; sessionId: string };

interface CallContext<Body> {
  operationId: string;
  /** Path parameters, already percent-decoded (client order ids included). */
  path: Record<string, string>;
  /** Query parameters as sent (strings). */
  query: Record<string, string>;
  /** The body, validated against the operation's schema; undefined when none was sent. */
  body: Body;
  caller: Caller;
  /** Current time in ms; injectable so tests and expiry logic agree. */
  now: number;
}

export interface RequestContext<Body = unknown> extends CallContext<Body> {
  /** The database transaction the whole call runs in; it commits when the handler returns. */
  db: Queryable;
}

/** A call decided on the exchange state in memory; its changes are stored before it is answered. */
export interface ExchangeContext<Body = unknown> extends CallContext<Body> {
  journal: Journal;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Handler = (context: RequestContext) => Promise<Reply>;

/** Handlers keyed by the operationId of the spec. */
export type Handlers = Record<string, Handler>;

/** Runs without waiting on anything: one call at a time decides on the exchange state. */
export type ExchangeHandler = (context: ExchangeContext) => Reply;

export type ExchangeHandlers = Record<string, ExchangeHandler>;

/**
 * A refusal a handler throws to answer with an error body; the transaction is rolled back.
 * `errors` gives the field-keyed shape `{errors: {field: [code]}}`, otherwise `{message}`.
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
