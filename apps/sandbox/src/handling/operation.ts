/**
 * The contract between the HTTP edge and the domain modules (src/exchange, src/partner). The
 * edge matches a request to an operation of the specs, validates it against the operation's
 * generated schema, authenticates it and has the Sequencer run the operation's handler with
 * what it parsed and the call's journal; a handler returns one of the operation's documented
 * replies or throws a domain error, which undoes what it changed.
 */
import type { operations as ExchangeOperations } from '@exchange-kit/contract/exchange';
import type * as ExchangeSchemas from '@exchange-kit/contract/exchange/schemas';
import type { operations as PartnerOperations } from '@exchange-kit/contract/partner';
import type * as PartnerSchemas from '@exchange-kit/contract/partner/schemas';
import type * as z from 'zod/mini';

import type { ExchangeState } from '../state/exchange-state.js';
import type { HistoryReads } from '../state/history.js';
import type { Journal } from '../state/journal.js';
import type { StoredReads } from '../state/storage.js';

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

/** What a call carries, as the operation's schemas read it. */
export interface CallInput {
  path: unknown;
  query: unknown;
  body: unknown;
}

/** What a call of an operation without schemas of its own carries: text, as sent. */
export interface UntypedInput extends CallInput {
  path: Record<string, string>;
  query: Record<string, string>;
}

/** The output of the generated schema `z<OperationId><Part>`, or `Absent` when there is none. */
type Parsed<
  Schemas,
  Id extends string,
  Part extends string,
  Absent,
> = `z${Capitalize<Id>}${Part}` extends keyof Schemas
  ? Schemas[`z${Capitalize<Id>}${Part}`] extends z.core.$ZodType
    ? z.output<Schemas[`z${Capitalize<Id>}${Part}`]>
    : Absent
  : Absent;

/**
 * An operation's input as its generated schemas parse it: path and query values of their
 * spec types (`limit=20` a number), the schemas' defaults applied, unknown fields dropped.
 */
export interface InputOf<Schemas, Id extends string> {
  /** Path parameters, percent-decoded (client order ids included), then parsed. */
  path: Parsed<Schemas, Id, 'Path', Record<string, never>>;
  query: Parsed<Schemas, Id, 'Query', Record<string, never>>;
  /** The body; undefined when none was sent and none is required. */
  body: Parsed<Schemas, Id, 'Body', undefined>;
}

export type ExchangeInput<Id extends keyof ExchangeOperations & string> = InputOf<
  typeof ExchangeSchemas,
  Id
>;
export type PartnerInput<Id extends keyof PartnerOperations & string> = InputOf<
  typeof PartnerSchemas,
  Id
>;

export interface CallContext<Input extends CallInput = UntypedInput> {
  operationId: string;
  path: Input['path'];
  query: Input['query'];
  body: Input['body'];
  caller: Caller;
  /** Current time in ms; injectable so tests and expiry logic agree. */
  now: number;
}

export interface RequestContext<Input extends CallInput = UntypedInput> extends CallContext<Input> {
  /**
   * The call's changes to the sandbox state, which it reads and changes through: they are
   * stored with the call's batch before it is answered, and undone when it is refused.
   */
  journal: Journal;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A reply that reads history (`HistoryReads`): made once every call decided before it is
 * stored, outside the calls decided one at a time, since the store answers it. It may throw a
 * domain error as a handler does; there is nothing of the call's to undo by then.
 */
export interface LaterReply<Answer extends Reply = Reply> {
  readonly later: (history: HistoryReads, state: ExchangeState) => Promise<Answer>;
}

export const later = <Answer extends Reply>(
  read: LaterReply<Answer>['later'],
): LaterReply<Answer> => ({ later: read });

/**
 * The refusal of a call on a row memory let go of once it was stored closed: made from the
 * store's copy, `refusal` of the row it `read`, or `missing` when there is none (or `refusal`
 * finds nothing to refuse: a row made since the call was decided was not there for it).
 */
export const refusedFromHistory = <Row>(
  read: (history: HistoryReads) => Promise<Row | undefined>,
  refusal: (row: Row) => Error | undefined,
  missing: () => Error,
): LaterReply<never> =>
  later(async (history) => {
    const row = await read(history);
    throw (row && refusal(row)) || missing();
  });

export const isLater = <Answer extends Reply>(
  reply: Answer | LaterReply<Answer>,
): reply is LaterReply<Answer> => 'later' in reply;

/**
 * Any operation's handler, as the edge holds them side by side. It runs without waiting on
 * anything: one call at a time decides on the sandbox state. Declared as a method so its
 * parameter is compared both ways: a handler typed for one operation's input fits.
 */
export type Handler = {
  handle(context: RequestContext<CallInput>): Reply | LaterReply;
}['handle'];

/** Handlers keyed by the operationId of the spec. */
export type Handlers = Record<string, Handler>;

/**
 * The stored rows a call of an operation may read that memory holds only once read (intents),
 * named from its body as sent, before it is validated: a value that is no id names nothing.
 */
export type StoredReadsOf = Record<string, (body: unknown, caller: Caller) => StoredReads>;

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

/** The handler of an exchange operation. */
export type ExchangeHandlerOf<Id extends keyof ExchangeOperations & string> = (
  context: RequestContext<ExchangeInput<Id>>,
) => DocumentedReply<ExchangeOperations[Id]> | LaterReply<DocumentedReply<ExchangeOperations[Id]>>;

/** The handler of a partner operation. */
export type PartnerHandlerOf<Id extends keyof PartnerOperations & string> = (
  context: RequestContext<PartnerInput<Id>>,
) => DocumentedReply<PartnerOperations[Id]>;
