import { clientOrderIdIn } from '../exchange/orders.js';
import {
  type Caller,
  type Handler,
  type Handlers,
  isLater,
  type LaterReply,
  type Reply,
  type StoredReadsOf,
} from '../handling/operation.js';
import type { Journal } from '../state/journal.js';
import type { Sequencer } from '../state/sequencer.js';
import {
  AuthError,
  acceptNonce,
  authenticate,
  isPublic,
  type SessionSecretLookup,
} from './auth.js';
import { callLimits } from './call-limits.js';
import { spendOneUse } from './nonce-less.js';
import type { AnonymousRateLimits, RateLimit } from './rate-limit.js';
import { asHttpError, errorReply } from './refusals.js';
import type { Route } from './router.js';
import { notUtf8, type SentQuery, validateRequest } from './validate.js';

/** A call of an operation, as the edge reads it off the wire: routed, its body parsed. */
export interface ParsedCall {
  route: Route;
  /** The request path with its query string, exactly as sent: what a JWT signs. */
  url: string;
  /** Path parameters, percent-decoded. */
  path: Record<string, string>;
  /** Query parameters as text; a name given more than once holds each of its values. */
  query: SentQuery;
  /** The parsed JSON body; undefined when none was sent. */
  body: unknown;
  /** The headers credentials come in (X-Service-Auth, Authorization), lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** The client's address, which limits anonymous partner calls. */
  address: string;
  /** When the call came, in ms. */
  now: number;
  /** When the call came by the wall clock (see AppOptions.wallClock); `now` when absent. */
  wallNow?: number;
}

export interface CallPipelineOptions {
  /** Decides every call on the sandbox state in memory and stores its changes. */
  sequencer: Sequencer;
  /** The handlers of both interfaces' operations, keyed by operationId. */
  handlers: Handlers;
  /** The stored rows calls of an operation read in before they are decided. */
  storedReads?: StoredReadsOf;
  findSessionSecret: SessionSecretLookup;
  /** Calls allowed per token; unlimited when absent. */
  rateLimit?: RateLimit;
  /** Anonymous partner calls allowed per public key and per client address; unlimited when absent. */
  anonymousRateLimits?: AnonymousRateLimits;
}

/** A query string as calls carry it: each name with its value, or its values if repeated. */
export function parseQuery(search: string): SentQuery {
  // Without a prototype: a name such as `__proto__` is a parameter like any other.
  const query: SentQuery = Object.create(null);
  for (const [name, value] of new URLSearchParams(search)) {
    const earlier = query[name];
    if (earlier === undefined) query[name] = value;
    else if (typeof earlier === 'string') query[name] = [earlier, value];
    else earlier.push(value);
  }
  // Named for validation to refuse: a parser that throws here would take the server down.
  const undecodable = search.includes('%') ? namesNotUtf8(search) : [];
  if (undecodable.length > 0) query[notUtf8] = undecodable;
  return query;
}

/** The names of the pairs of `search` whose percent-escapes spell no UTF-8. */
function namesNotUtf8(search: string): string[] {
  const names: string[] = [];
  for (const pair of search.split('&')) {
    if (!pair.includes('%') || spellsUtf8(pair)) continue;
    const [name] = new URLSearchParams(pair).keys();
    if (name !== undefined) names.push(name);
  }
  return names;
}

/** Whether the escapes of `raw` spell UTF-8; a `%` that starts no escape is itself. */
function spellsUtf8(raw: string): boolean {
  try {
    decodeURIComponent(raw.replace(/%(?![0-9a-f]{2})/gi, '%25'));
    return true;
  } catch {
    return false;
  }
}

/**
 * An exchange read anyone may make: answered without looking at credentials, and the only
 * answers the edge keeps, since what they show changes with the market alone. A HEAD is
 * answered as its GET.
 */
export function isPublicRead(route: Route): boolean {
  return route.method === 'GET' && route.api === 'exchange' && isPublic(route);
}

/** A POST /orders carrying a client_order_id may be signed without a nonce. */
function carriesClientOrderId(route: Route, body: unknown): boolean {
  return route.operation.operationId === 'createOrder' && typeof clientOrderIdIn(body) === 'string';
}

/** An authentication refusal as the conventions answer it: 401 with a plain-text reason. */
function authRefusal(error: AuthError): Reply {
  return {
    status: 401,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: error.message,
  };
}

/**
 * One call decided by its handler as `caller`, its input validated first: a refusal is undone
 * and answered as the interface documents it. The pipeline runs it once a call is let in; the
 * console runs it for the reads it makes as a demo user.
 */
export function decideAs(
  handler: Handler,
  call: Pick<ParsedCall, 'route' | 'path' | 'query' | 'body' | 'now'>,
  caller: Caller,
  journal: Journal,
): Reply | LaterReply {
  const { route, now } = call;
  try {
    const input = validateRequest(route, { path: call.path, query: call.query, body: call.body });
    return handler({ operationId: route.operation.operationId, ...input, caller, now, journal });
  } catch (error) {
    const refused = asHttpError(error);
    if (!refused) throw error;
    journal.undo();
    return errorReply(refused, route.api);
  }
}

/** The reply of a decided call; one that reads history is made now, refusals answered. */
export async function replyOf(
  sequencer: Sequencer,
  reply: Reply | LaterReply,
  api: Route['api'],
): Promise<Reply> {
  if (!isLater(reply)) return reply;
  try {
    return await sequencer.read((history, state) => reply.later(history, state.exchange));
  } catch (error) {
    const refused = asHttpError(error);
    if (!refused) throw error;
    return errorReply(refused, api);
  }
}

/**
 * How every call of both interfaces is answered once read: authenticated, limited, its
 * stored reads named, then decided by its handler on the Sequencer, with its nonce spent and
 * its input validated in the same step, so a refusal still spends the nonce and is undone
 * but for it. Refusals come back as the interface documents them; anything else is thrown.
 * Knows nothing of HTTP framing: the edge hands it calls, and so can tests.
 */
export function callPipeline(options: CallPipelineOptions): (call: ParsedCall) => Promise<Reply> {
  const { sequencer } = options;
  const overLimit = callLimits(options.rateLimit, options.anonymousRateLimits);

  async function decide(call: ParsedCall): Promise<Reply> {
    const { route, body, now } = call;
    const wallNow = call.wallNow ?? now;
    const operationId = route.operation.operationId;
    const handler = options.handlers[operationId];
    if (!handler) {
      return { status: 501, body: { message: `${operationId} is not implemented` } };
    }
    const { caller, nonce, oneUse } = isPublicRead(route)
      ? { caller: { kind: 'anonymous' as const } }
      : authenticate(
          {
            route,
            url: call.url,
            headers: call.headers,
            nonceOptional: carriesClientOrderId(route, body),
            now,
            wallNow,
            state: sequencer.state,
          },
          options.findSessionSecret,
        );
    const limited = overLimit(caller, now, { api: route.api, body, address: call.address });
    if (limited) return limited;
    const reads = options.storedReads?.[operationId]?.(body, caller);
    const reply = await sequencer.run(
      (journal) => {
        // Decided again after the store refused an earlier call, it spent its nonce (or its
        // one-use token) the first time.
        if (nonce && !journal.again) {
          acceptNonce(journal.state, nonce);
          journal.nonce(nonce.scope, nonce.value);
        }
        if (oneUse && !journal.again) {
          spendOneUse(journal.state, oneUse, wallNow);
          journal.nonce(oneUse.scope, oneUse.iat);
        }
        // Validated once the call is let in, so a refusal still spends its nonce.
        return decideAs(handler, call, caller, journal);
      },
      reads,
      nonce?.scope ?? oneUse?.scope,
    );
    return replyOf(sequencer, reply, route.api);
  }

  return async (call) => {
    try {
      return await decide(call);
    } catch (error) {
      if (error instanceof AuthError) return authRefusal(error);
      const refused = asHttpError(error);
      if (refused) return errorReply(refused, call.route.api);
      throw error;
    }
  };
}
