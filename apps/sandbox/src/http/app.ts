import { createServer, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { bundledDocuments } from '@exchange-kit/contract/documents';
import cors from '@fastify/cors';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Reply } from '../handling/operation.js';
import type { Logger } from '../log.js';
import {
  type CallPipelineOptions,
  callPipeline,
  isPublicRead,
  parseQuery,
} from './call-pipeline.js';
import { answerClientError } from './client-error.js';
import { ConnectionTurns } from './connection-turns.js';
import { legacyHeaderNames, routedUrl, withDescriptionNames } from './legacy-names.js';
import { asHttpError, errorReply, HttpError } from './refusals.js';
import { ReplyCache, type Serialized } from './reply-cache.js';
import { allowedMethods, apiOfPath, findRoute, type Route, routerPath } from './router.js';
import { discardUnreadBody } from './unread-body.js';
import { maxBodyBytes, notJson, parseBody } from './validate.js';

/** What the sandbox serves besides the interfaces; undefined for a path it does not serve. */
export type Pages = (request: IncomingMessage, pathname: string) => Promise<Serialized | undefined>;

export interface AppOptions extends CallPipelineOptions {
  routes: Route[];
  now: () => number;
  /**
   * The wall clock, which callers sign by (a JWT's `iat`): what test control adds to `now`
   * leaves it. `now` when absent.
   */
  wallClock?: () => number;
  /** Pages for people (index, OAuth approval), for paths no operation of the specs has. */
  pages?: Pages;
  log: Logger;
}

const specDocuments: Record<string, unknown> = {
  '/openapi/exchange.json': bundledDocuments.exchange,
  '/openapi/partner.json': bundledDocuments.partner,
};

// Browser applications call the partner interface from their own origin. No cookie is ever
// involved (credentials travel in headers), so any origin may call.
const corsOptions = {
  origin: '*',
  methods: ['GET', 'POST', 'PUT', 'OPTIONS'],
  allowedHeaders: [
    'content-type',
    'authorization',
    'x-service-auth',
    'x-service-api-version',
    ...Object.keys(legacyHeaderNames),
  ],
  maxAge: 600,
  // Any OPTIONS is answered 204, a preflight or not.
  strictPreflight: false,
};

/** What each route of an operation carries for the hooks and handlers that serve it. */
interface RouteConfig {
  route?: Route;
}

function routeOf(request: FastifyRequest): Route | undefined {
  return (request.routeOptions.config as RouteConfig).route;
}

function pathnameOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

function sendSerialized(reply: FastifyReply, serialized: Serialized): FastifyReply {
  return reply.code(serialized.status).headers(serialized.headers).send(serialized.bytes);
}

function sendReply(reply: FastifyReply, answer: Reply): FastifyReply {
  reply.code(answer.status);
  if (answer.headers) reply.headers(answer.headers);
  return reply.send(answer.body);
}

/** A public read's answer as kept for the next callers of the same URL, CORS headers included. */
function serializedJson(
  answer: Reply,
  headers: Record<string, OutgoingHttpHeaders[string]>,
): Serialized {
  const bytes = Buffer.from(JSON.stringify(answer.body));
  // Dated when each copy is sent, by Node or by the moved clock: not when it was kept.
  const { date: _kept, ...undated } = headers;
  return {
    status: answer.status,
    headers: {
      ...undated,
      'content-type': 'application/json; charset=utf-8',
      'content-length': bytes.length,
      ...answer.headers,
    },
    bytes,
  };
}

/** A refusal Fastify itself raised (a body too large or cut short) as the edge answers it. */
function frameworkRefusal(
  error: { code?: string; statusCode?: number; message: string },
  request: FastifyRequest,
): HttpError | undefined {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const limit = request.routeOptions.bodyLimit;
    return new HttpError(413, 'Body too large', { body: [`larger_than_${limit}_bytes`] });
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return notJson();
  if (error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return new HttpError(400, 'The body does not have the length content-length announces');
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return new HttpError(status, error.message);
  }
  return undefined;
}

/**
 * The sandbox's HTTP edge on Fastify: one route per operation of the specs, whose body is
 * read and parsed as the spec bounds it, then answered by the call pipeline (see
 * callPipeline). What is HTTP stays here: CORS, body limits, pages, the spec documents,
 * public reads' answers kept until the state they show changes, and the refusals of
 * requests no operation takes.
 */
export async function createApp(options: AppOptions) {
  const { sequencer } = options;
  const publicReads = new ReplyCache();
  const answerCall = callPipeline(options);

  async function answer(
    route: Route,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<Reply | Serialized> {
    // What a JWT signs: the URL as sent, before routing dropped a trailing slash.
    const url = request.originalUrl;
    const now = options.now();
    const wallNow = options.wallClock?.() ?? now;
    const publicRead = isPublicRead(route);
    const version = sequencer.version;
    const { headers, query } = withDescriptionNames(route.api, {
      headers: request.headers,
      query: request.query as Record<string, string>,
    });
    const decided = await answerCall({
      route,
      url,
      path: request.params as Record<string, string>,
      query,
      body: request.body,
      headers,
      address: request.socket.remoteAddress ?? '',
      now,
      wallNow,
    });
    if (!publicRead || decided.status !== 200) return decided;
    // Kept only once what it shows is committed.
    await sequencer.settled();
    const serialized = serializedJson(decided, reply.getHeaders());
    publicReads.set(url, version, now, serialized);
    return serialized;
  }

  /**
   * A path the router cannot decode: a page's when a page serves it, else not found, naming
   * the path parameter that is not valid percent-encoding when there is one.
   */
  async function refuseUndecodable(
    error: { code?: string },
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const pathname = pathnameOf(request.url);
    const page = await options.pages?.(request.raw, pathname);
    if (page) {
      sendSerialized(reply, page);
      return;
    }
    const resolution = findRoute(options.routes, request.method, pathname);
    const message =
      resolution.kind === 'bad-encoding'
        ? `Path parameter ${resolution.parameter} is not valid percent-encoding`
        : `No route for ${request.method} ${pathname}`;
    const status = error.code === 'FST_ERR_BAD_URL' ? 404 : 400;
    reply.code(status).header('access-control-allow-origin', '*').send({ message });
  }

  const loggerInstance: FastifyBaseLogger = options.log;
  const app = Fastify({
    loggerInstance,
    // One line per event worth a look (an internal error, an aborted call), not per call.
    logController: new LogController({ disableRequestLogging: true }),
    // Every GET answers HEAD too (RFC 9110 §9.3.2): same status and headers, no body.
    exposeHeadRoutes: true,
    // A public read seen lately is answered from its kept bytes before Fastify routes it:
    // the most frequent call costs no more than it did on a bare Node server. The server
    // keeps Node's own timeouts.
    serverFactory: (handler) =>
      createServer((request, response) => {
        const now = options.now();
        // Once test control has moved the clock on, every answer is dated by it, as what the
        // answer holds is: a client measuring an expiry against the answer's Date agrees.
        if (options.wallClock && now - options.wallClock() > 1000) {
          response.setHeader('date', new Date(now).toUTCString());
        }
        if (request.method === 'GET') {
          const kept = publicReads.get(request.url ?? '/', sequencer.version, now);
          if (kept) {
            response.writeHead(kept.status, kept.headers);
            response.end(kept.bytes);
            return;
          }
        }
        handler(request, response);
      }),
    clientErrorHandler: answerClientError,
    rewriteUrl: (request) => routedUrl(options.routes, request.url ?? '/'),
    routerOptions: {
      // A client order id may be as long as the request line allows.
      maxParamLength: 16 * 1024,
      querystringParser: parseQuery,
    },
    frameworkErrors(error, request, reply) {
      void refuseUndecodable(error, request, reply as FastifyReply);
    },
  });

  const turns = new ConnectionTurns();
  app.addHook('onRequest', (request, reply, done) => {
    turns.take(request.raw, reply.raw);
    done();
  });

  // Pages are served before CORS applies: a page is for the browser that opened it.
  app.addHook('onRequest', (request, reply, done) => {
    if (!options.pages || !request.is404 || request.method === 'OPTIONS') return done();
    options.pages(request.raw, pathnameOf(request.url)).then((page) => {
      if (page) sendSerialized(reply, page);
      else done();
    }, done);
  });
  await app.register(cors, corsOptions);

  app.addHook('onRequestAbort', (request, done) => {
    // The client went away mid-call: nothing to answer, and nothing went wrong here.
    request.log.info(
      { method: request.method, path: pathnameOf(request.url) },
      'request aborted by the client',
    );
    done();
  });

  // Bodies are read as text up to the route's limit, then refused unless sent as JSON and
  // nested no deeper than the spec allows; nothing after this point walks an unbounded depth.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, bytes, done) => {
    const route = routeOf(request);
    if (!route) return done(null, undefined);
    try {
      done(null, parseBody(route, bytes as Buffer, request.headers));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.setErrorHandler(async (error, request, reply) => {
    const api = routeOf(request)?.api ?? 'exchange';
    const refused = asHttpError(error) ?? frameworkRefusal(error as HttpError & Error, request);
    if (refused) {
      // Fastify closes the connection after a body it would not read: read it first.
      if (refused.status === 413) await discardUnreadBody(request.raw);
      return sendReply(reply, errorReply(refused, api));
    }
    if (request.raw.destroyed && !request.raw.complete) return reply;
    request.log.error(
      { method: request.method, path: pathnameOf(request.url), err: error },
      'internal error',
    );
    return reply.code(500).send({ message: 'Internal error' });
  });

  app.setNotFoundHandler((request, reply) => {
    const pathname = pathnameOf(request.url);
    const api = apiOfPath(options.routes, pathname);
    // The spec documents are served beside the operations, on GET (and HEAD) alone.
    const allowed = Object.hasOwn(specDocuments, pathname)
      ? ['GET', 'HEAD']
      : allowedMethods(options.routes, pathname);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      const message = `${request.method} is not allowed on ${pathname}: it takes ${allowed.join(', ')}`;
      return sendReply(reply, errorReply(new HttpError(405, message), api));
    }
    const message = `No route for ${request.method} ${pathname}`;
    return sendReply(reply, errorReply(new HttpError(404, message), api));
  });

  for (const [url, document] of Object.entries(specDocuments)) {
    app.get(url, (_request, reply) => reply.send(document));
  }

  // Calls being answered: closing waits for them, so none meets a closed store, even one
  // whose client has gone.
  const inFlight = new Set<Promise<unknown>>();

  for (const route of options.routes) {
    app.route({
      method: route.method.toUpperCase(),
      url: routerPath(route.path),
      bodyLimit: maxBodyBytes(route),
      config: { route } satisfies RouteConfig,
      handler: async (request, reply) => {
        // An empty path parameter names nothing: the path is not one of the spec's.
        if (Object.values(request.params as Record<string, string>).includes('')) {
          return reply.callNotFound();
        }
        const before = turns.before(request.raw);
        const answered = before
          ? before.then(() => answer(route, request, reply))
          : answer(route, request, reply);
        inFlight.add(answered);
        try {
          const result = await answered;
          return 'bytes' in result ? sendSerialized(reply, result) : sendReply(reply, result);
        } finally {
          inFlight.delete(answered);
        }
      },
    });
  }

  return {
    app,
    /** Resolves once every call received so far is answered. */
    async drain(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
