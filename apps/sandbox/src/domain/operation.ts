/**
 * The contract between the HTTP edge and the domain modules (src/exchange, src/partner). The
 * edge matches a request to an operation of the specs, validates it against the operation's
 * generated schema, authenticates it and calls the operation's handler with what it parsed;
 * a handler returns one of the operation's documented replies or throws a domain error.
 */
import type { operations as ExchangeOperations } from '@exchange-kit/contract/exchange';
import type { operations as PartnerOperations } from '@exchange-kit/contract/partner';

/**
 * What a handler needs of the transaction it runs in; the store provides it. A statement's
 * values travel apart from its text, so no value is ever spliced into SQL.
 */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

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

export interface CallContext<Body = unknown> {
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

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Handler = (context: RequestContext) => Promise<Reply>;

/** Handlers keyed by the operationId of the spec. */
export type Handlers = Record<string, Handler>;

type JsonBody<Response> = Response extends { content: { 'application/json': infer Body } }
  ? Body
  : undefined;

/**
 * The documented success replies of an operation (refusals are thrown, not returned), typed
 * from the contract: a view that forgets a required field, or a status the spec does not
 * document, does not compile.
 */
export type DocumentedReply<Operation> = Operation extends { responses: infer Responses }
  ? {
      [Status in keyof Responses & number]: Status extends 200 | 201 | 202 | 204
        ? { status: Status; body: JsonBody<Responses[Status]>; headers?: Record<string, string> }
        : never;
    }[keyof Responses & number]
  : never;

/** The handler of an exchange operation that runs in a database transaction of its own. */
export type ExchangeApiHandlerOf<Id extends keyof ExchangeOperations> = (
  context: RequestContext,
) => Promise<DocumentedReply<ExchangeOperations[Id]>>;

/** The handler of a partner operation, each run in a database transaction of its own. */
export type PartnerHandlerOf<Id extends keyof PartnerOperations> = (
  context: RequestContext,
) => Promise<DocumentedReply<PartnerOperations[Id]>>;
