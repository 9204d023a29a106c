import type { IncomingMessage, ServerResponse } from 'node:http';
import { nonceUpsert } from '../exchange/rows.js';
import type { Sequencer } from '../exchange/sequencer.js';
import type { Logger } from '../log.js';
import type { Database, Queryable } from '../store/database.js';
import {
  AuthError,
  acceptNonce,
  authenticate,
  isPublic,
  type SessionSecretLookup,
} from './auth.js';
import { type AnonymousRateLimits, type RateLimit, RateLimiter } from './rate-limit.js';
import { ReplyCache, type Serialized } from './reply-cache.js';
import { findRoute, type Route } from './router.js';
import { specs } from './spec.js';
import {
  type Caller,
  type ExchangeHandlers,
  type Handlers,
  HttpError,
  type Reply,
} from './types.js';
import { maxBodyBytes, parseBody, validateRequest } from './validate.js';

export interface AppOptions {
  db: Database;
  sequencer: Sequencer;
  routes: Route[];
  /** Operations that run in a database transaction of their own. */
  handlers: Handlers;
  /** Operations decided on the exchange state in memory (orders, accounts, market data). */
  exchangeHandlers: ExchangeHandlers;
  findSessionSecret: SessionSecretLookup;
  now: () => number;
  /** Calls allowed per token; unlimited when absent. */
  rateLimit?: RateLimit;
  /** Pages for people (index, OAuth approval), tried before the interfaces' routes. */
  pages?: (request: IncomingMessage, pathname: string) => Promise<Serialized | undefined>;
  /** Anonymous partner calls allowed per public key and per client address; unlimited when absent. */
  anonymousRateLimits?: AnonymousRateLimits;
  log: Logger;
}

const specDocuments: Record<string, unknown> = {
  '/openapi/exchange.json': specs.exchange,
  '/openapi/partner.json': specs.partner,
};

/** The body as text; a body over `limit` bytes is refused without reading the rest. */
async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      throw new HttpError(413, 'Body too large', { body: [`larger_than_${limit}_bytes`] });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function serialize(reply: Reply): Serialized {
  const text = typeof reply.body === 'string';
  const bytes = Buffer.from(text ? (reply.body as string) : JSON.stringify(reply.body));
  return {
    status: reply.status,
    headers: {
      'content-type': text ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
      'content-length': bytes.length,
      ...corsHeaders,
      ...reply.headers,
    },
    bytes,
  };
}

function send(response: ServerResponse, reply: Serialized): void {
  response.writeHead(reply.status, reply.headers);
  response.end(reply.bytes);
}

/**
 * A refusal in the error shape its interface documents: the exchange's `{errors}` or
 * `{message}`, or the Quick Exchange envelope `{success: false, message, errors?}`.
 */
function errorReply(error: HttpError, api: Route['api'] = 'exchange'): Reply {
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

// Browser applications call the partner interface from their own origin. No cookie is ever
// involved (credentials travel in headers), so any origin may call.
const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PUT, OPTIONS',
  'access-control-allow-headers':
    'content-type, authorization, x-service-auth, x-service-api-version',
  'access-control-max-age': '600',
};

function parseQuery(search: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(search)) query[name] ??= value;
  return query;
}

/** What a rate limit reads of a call besides its caller. */
interface LimitedCall {
  api: Route['api'];
  body: unknown;
  address: string;
}

/** A POST /orders carrying a client_order_id may be signed without a nonce. */
function carriesClientOrderId(route: Route, body: unknown): boolean {
  if (route.operation.operationId !== 'createOrder' || typeof body !== 'object' || body === null) {
    return false;
  }
  const order = 'order' in body ? (body as { order: unknown }).order : body;
  return typeof (order as { client_order_id?: unknown } | null)?.client_order_id === 'string';
}

/**
 * The sandbox's request handling: route by the specs, parse the body, then in one database
 * transaction authenticate, validate and run the operation's handler. A refusal after
 * authentication rolls back to a savepoint, so the nonce stays spent while nothing else
 * changes. Public reads run in a read-only transaction and their answers are kept until the
 * store changes.
 */
export function createApp(options: AppOptions) {
  const { sequencer } = options;
  const publicReads = new ReplyCache();
  const limiter = options.rateLimit && new RateLimiter(options.rateLimit);
  const { perKey, perAddress } = options.anonymousRateLimits ?? {};
  const keyLimiter = perKey && new RateLimiter(perKey);
  const addressLimiter = perAddress && new RateLimiter(perAddress);

  /** The partner public key an anonymous call names, if it names one. */
  function publicKeyOf(body: unknown): string | undefined {
    if (typeof body !== 'object' || body === null) return undefined;
    const { public_api_key: key, api_key: legacy } = body as Record<string, unknown>;
    if (typeof key === 'string') return key;
    return typeof legacy === 'string' ? legacy : undefined;
  }

  /**
   * The service's answer to a caller over its limit, before the call spends its nonce or
   * changes anything: the same call succeeds once the client has waited as told. A token is
   * limited by its own count; an anonymous partner call by its public key's and its
   * address's, counted only when both let it in.
   */
  function overLimit(caller: Caller, now: number, call: LimitedCall): Reply | undefined {
    let refused: { retryAfterSeconds: number } | undefined;
    if ('tokenId' in caller) {
      refused = limiter?.take(caller.tokenId, now);
    } else if (caller.kind === 'anonymous' && call.api === 'partner') {
      const key = publicKeyOf(call.body);
      const byKey = key === undefined ? undefined : keyLimiter?.refusal(key, now);
      const byAddress = addressLimiter?.refusal(call.address, now);
      refused =
        byKey && byAddress
          ? byKey.retryAfterSeconds > byAddress.retryAfterSeconds
            ? byKey
            : byAddress
          : (byKey ?? byAddress);
      if (!refused) {
        if (key !== undefined) keyLimiter?.count(key, now);
        addressLimiter?.count(call.address, now);
      }
    }
    if (!refused) return undefined;
    const seconds = refused.retryAfterSeconds;
    const message = `API rate limit exceeded. Please retry after ${seconds}s`;
    return {
      ...errorReply(new HttpError(429, message), call.api),
      headers: { 'retry-after': String(seconds) },
    };
  }
  // Authentication reads OAuth grants and session secrets; a call decided in memory has no
  // transaction of its own to read them in.
  const reader: Queryable = {
    query: (sql, params) => options.db.read((tx) => tx.query(sql, params)),
  };

  async function answer(request: IncomingMessage): Promise<Reply | Serialized> {
    const url = request.url ?? '/';
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    const method = request.method ?? 'GET';
    if (method === 'OPTIONS') return { status: 204, body: '' };
    const document = specDocuments[pathname];
    if (method === 'GET' && document) return { status: 200, body: document };
    const page = await options.pages?.(request, pathname);
    if (page) return page;

    const resolution = findRoute(options.routes, method, pathname);
    if (resolution.kind === 'not-found') {
      return { status: 404, body: { message: `No route for ${method} ${pathname}` } };
    }
    if (resolution.kind === 'bad-encoding') {
      return {
        status: 404,
        body: { message: `Path parameter ${resolution.parameter} is not valid percent-encoding` },
      };
    }
    const { route, path } = resolution.match;
    const operationId = route.operation.operationId;
    const handler = options.handlers[operationId];
    const exchangeHandler = options.exchangeHandlers[operationId];
    if (!handler && !exchangeHandler) {
      return {
        status: 501,
        body: { message: `${route.operation.operationId} is not implemented` },
      };
    }

    let body: unknown;
    try {
      const text = await readBody(request, maxBodyBytes(route));
      body = parseBody(route, text, request.headers['content-type']);
    } catch (error) {
      if (error instanceof HttpError) return errorReply(error, route.api);
      throw error;
    }

    const now = options.now();
    const limitedCall = { api: route.api, body, address: request.socket.remoteAddress ?? '' };
    const query = parseQuery(queryAt === -1 ? '' : url.slice(queryAt + 1));
    const call = { operationId, path, query, now };
    const validBody = () => validateRequest(route, { path, query, body }).body;
    const authRequest = {
      route,
      url,
      headers: request.headers,
      nonceOptional: carriesClientOrderId(route, body),
      now,
      state: sequencer.state,
    };

    if (exchangeHandler) {
      const publicRead = method === 'GET' && isPublic(route);
      const version = sequencer.version;
      const { caller, nonce } = publicRead
        ? { caller: { kind: 'anonymous' as const }, nonce: undefined }
        : await authenticate(reader, authRequest, options.findSessionSecret);
      const limited = overLimit(caller, now, limitedCall);
      if (limited) return limited;
      const reply = await sequencer.run((journal) => {
        if (nonce) {
          acceptNonce(journal.state, nonce);
          journal.nonce(nonce.scope, nonce.value);
        }
        try {
          return exchangeHandler({ ...call, body: validBody(), caller, journal });
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          journal.undo();
          return errorReply(error, route.api);
        }
      });
      if (!publicRead || reply.status !== 200) return reply;
      // Kept only once what it shows is committed.
      await sequencer.settled();
      const serialized = serialize(reply);
      publicReads.set(url, version, now, serialized);
      return serialized;
    }

    if (!handler) throw new Error(`${operationId} has no handler`);
    return options.db.transaction(async (db) => {
      const { caller, nonce } = await authenticate(db, authRequest, options.findSessionSecret);
      const limited = overLimit(caller, now, limitedCall);
      if (limited) return limited;
      if (nonce) {
        acceptNonce(sequencer.state, nonce);
        const upsert = nonceUpsert(nonce);
        await db.query(upsert.sql, upsert.params);
      }
      await db.query('SAVEPOINT call');
      try {
        return await handler({ ...call, body: validBody(), caller, db });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        await db.query('ROLLBACK TO SAVEPOINT call');
        return errorReply(error, route.api);
      }
    });
  }

  // Calls being answered: closing waits for them, so none meets a closed store.
  const inFlight = new Set<Promise<void>>();

  function listener(request: IncomingMessage, response: ServerResponse): void {
    if (request.method === 'GET') {
      const kept = publicReads.get(request.url ?? '/', sequencer.version, options.now());
      if (kept) {
        send(response, kept);
        return;
      }
    }
    const answered = answer(request).then(
      (reply) => send(response, 'bytes' in reply ? reply : serialize(reply)),
      (error: unknown) => {
        const call = { method: request.method, path: request.url?.split('?')[0] };
        if (error instanceof AuthError) {
          send(response, serialize({ status: 401, body: error.message }));
        } else if (error instanceof HttpError) {
          send(response, serialize(errorReply(error)));
        } else if (!request.complete && request.destroyed) {
          // The client went away mid-body: nothing to answer, and nothing went wrong here.
          options.log.info(call, 'request aborted by the client');
        } else {
          options.log.error({ ...call, err: error }, 'internal error');
          send(response, serialize({ status: 500, body: { message: 'Internal error' } }));
        }
      },
    );
    inFlight.add(answered);
    void answered.finally(() => inFlight.delete(answered));
  }

  return Object.assign(listener, {
    /** Resolves once every call received so far is answered. */
    async drain(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  });
}
