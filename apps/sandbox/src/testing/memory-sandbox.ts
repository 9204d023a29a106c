/**
 * The sandbox without a database or a socket: the demo state built as records in memory, a
 * Sequencer on a store that keeps nothing, and calls answered by the same call pipeline the
 * HTTP edge hands its calls to, so a rule is tested with the answers an HTTP caller gets.
 */
import { type ApiToken, type ServiceAuthRequest, serviceAuthJwt } from '@exchange-kit/core/auth';
import { type DemoCredentials, defaultCredentials } from '../config.js';
import {
  demoAssets,
  demoPrices,
  firstOrderId,
  type NewProduct,
  placeDemoBook,
} from '../demo-market.js';
import { seedDemo } from '../demo-seed.js';
import type { Reply } from '../handling/operation.js';
import { type CallPipelineOptions, callPipeline, parseQuery } from '../http/call-pipeline.js';
import { buildRoutes, findRoute } from '../http/router.js';
import { parseBody } from '../http/validate.js';
import { findSessionSecret } from '../partner/handlers.js';
import { freshDatabase } from '../postgres.test-support.js';
import { sandboxHandlers, sandboxStoredReads } from '../sandbox-handlers.js';
import {
  addPartner,
  addProduct,
  addToken,
  addUser,
  type NewPartner,
  type NewUser,
} from '../seeding.js';
import { type Changes, Journal } from '../state/journal.js';
import { SandboxState } from '../state/sandbox-state.js';
import { Sequencer } from '../state/sequencer.js';
import { type Database, openDatabase } from '../store/database.js';
import { migrate } from '../store/migrations.js';
import { seed } from '../store/seed.js';
import type { Client, ParsedResponse, RequestOptions } from '../test-support.js';
import { checkDocumentedRefusal } from './documented-refusals.js';
import { memoryStorage } from './memory-storage.js';

const routes = buildRoutes();

/** What OAuth hrefs name: no server listens in memory. */
const origin = 'http://sandbox.invalid';

export interface MemorySandboxOptions
  extends Partial<Pick<CallPipelineOptions, 'rateLimit' | 'anonymousRateLimits'>> {
  credentials?: DemoCredentials;
  /** The sandbox's clock in ms; the wall clock when absent. */
  now?: () => number;
  settleAfterMs?: number;
  requireSessionAuth?: boolean;
  /**
   * Keeps the demo sandbox in a store seeded as a start seeds it (in-memory PGlite, or a new
   * database on SANDBOX_TEST_DATABASE_URL's PostgreSQL), where history is read from the
   * store: the same calls, to hold both answering alike. Only the demo users call then.
   */
  stored?: boolean;
  /** Plays a store that refuses the batches it names (see `memoryStorage`). */
  refuses?: (changes: Changes) => boolean;
}

/** The answers of the call pipeline, on the demo state in memory. */
export interface MemorySandbox {
  sequencer: Sequencer;
  credentials: DemoCredentials;
  /** The sandbox's clock, in ms. */
  now(): number;
  /** Answers a request as the HTTP edge would hand it on: `url` is the path and its query. */
  request(
    method: string,
    url: string,
    options?: RequestOptions & { address?: string },
  ): Promise<ParsedResponse>;
  /** A client signing every call with `token`, as `clientFor` is over HTTP. */
  clientFor(token: ApiToken): Client;
  /** A new user, funded with the starting balances, with a client signing as that user. */
  addUser(): NewUser & { call: Client };
  /** Another API token of a user: each token has a nonce sequence of its own. */
  addToken(userId: number): ApiToken;
  /** A product with an empty book; its id. */
  addProduct(product: NewProduct): number;
  /** A new user owning one partner application, with an API token. */
  addPartner(): NewPartner;
  /** Waits for what was decided to be stored, and closes the store of a `stored` sandbox. */
  close(): Promise<void>;
}

function header(answer: Reply, name: string): string | undefined {
  return answer.headers?.[name];
}

/** A reply as a client reads it off the wire: JSON text parsed back, or plain text. */
function asParsedResponse(reply: Reply): ParsedResponse {
  const text = header(reply, 'content-type');
  if (text?.startsWith('text/plain')) {
    return { status: reply.status, contentType: text, body: String(reply.body) };
  }
  const json = JSON.stringify(reply.body);
  return {
    status: reply.status,
    contentType: 'application/json; charset=utf-8',
    body: json === undefined ? '' : JSON.parse(json),
  };
}

/** Signed synchronously, so calls reach the pipeline in the order they were made. */
export function signedNow(token: ApiToken, request: ServiceAuthRequest): string {
  const jwt = serviceAuthJwt(token, request);
  if (typeof jwt !== 'string') throw new Error('This platform cannot sign synchronously');
  return jwt;
}

/**
 * Runs a seeding command on `state` at once, outside the Sequencer: in memory there is nothing
 * to store, and tests add what they need synchronously.
 */
function seeded<T>(state: SandboxState, command: (journal: Journal) => T): T {
  return command(new Journal(state));
}

/**
 * The demo state `store/seed.ts` writes to a new store, seeded in memory by the same commands;
 * Quick Exchange's assets and prices as migration 0002 writes them.
 */
function demoState(credentials: DemoCredentials, now: number): SandboxState {
  const state = new SandboxState();
  state.exchange.next.order = firstOrderId;
  for (const asset of demoAssets()) state.partner.assets.set(asset.code, asset);
  state.partner.prices.push(...demoPrices());
  seeded(state, (journal) => seedDemo(journal, credentials, now));
  return state;
}

/** The demo sandbox in memory, its market maker's book placed. */
export async function memorySandbox(options: MemorySandboxOptions = {}): Promise<MemorySandbox> {
  const credentials = options.credentials ?? defaultCredentials;
  const now = options.now ?? Date.now;
  let database: Database | undefined;
  let sequencer: Sequencer;
  if (options.stored) {
    const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;
    database = await openDatabase(
      serverUrl ? { databaseUrl: await freshDatabase(serverUrl) } : { memory: true },
    );
    await migrate(database);
    sequencer = await seed(database, credentials, now());
  } else {
    sequencer = await Sequencer.open(memoryStorage(demoState(credentials, now()), options.refuses));
    await placeDemoBook(sequencer, now());
  }
  const answer = callPipeline({
    sequencer,
    handlers: sandboxHandlers(origin, options.settleAfterMs, options.requireSessionAuth),
    storedReads: sandboxStoredReads,
    findSessionSecret,
    rateLimit: options.rateLimit,
    anonymousRateLimits: options.anonymousRateLimits,
  });
  const request: MemorySandbox['request'] = async (method, url, requestOptions = {}) => {
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    const found = findRoute(routes, method, pathname);
    if (found.kind !== 'matched') throw new Error(`No operation for ${method} ${pathname}`);
    const { route, path } = found.match;
    const sentBody =
      requestOptions.rawBody ??
      (requestOptions.body === undefined ? '' : JSON.stringify(requestOptions.body));
    const bytes = Buffer.from(sentBody);
    const headers = Object.fromEntries(
      Object.entries(requestOptions.headers ?? {}).map(([name, value]) => [
        name.toLowerCase(),
        value,
      ]),
    );
    const sent = {
      path,
      query: parseQuery(queryAt === -1 ? '' : url.slice(queryAt + 1)),
      body: parseBody(route, bytes, { 'content-type': 'application/json', ...headers }),
    };
    const reply = await answer({
      route,
      url,
      ...sent,
      headers,
      address: requestOptions.address ?? '127.0.0.1',
      now: now(),
    });
    checkDocumentedRefusal(route, sent, reply);
    return asParsedResponse(reply);
  };

  const clientFor =
    (token: ApiToken): Client =>
    async (method, path, requestOptions = {}) => {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (!requestOptions.anonymous) {
        const signPath = requestOptions.signPath ?? path;
        headers['x-service-auth'] = requestOptions.oauth
          ? signedNow(token, { path: signPath, oauth: requestOptions.oauth })
          : signedNow(token, { path: signPath });
      }
      return request(method, path, { ...requestOptions, headers });
    };

  return {
    sequencer,
    credentials,
    now,
    request,
    clientFor,
    addUser() {
      const user = seeded(sequencer.state, (journal) => addUser(journal, { now: now() }));
      return { ...user, call: clientFor(user) };
    },
    addToken(userId) {
      return seeded(sequencer.state, (journal) => addToken(journal, userId));
    },
    addProduct(product) {
      return seeded(sequencer.state, (journal) => addProduct(journal, product));
    },
    addPartner() {
      return seeded(sequencer.state, addPartner);
    },
    async close() {
      await sequencer.settled();
      await database?.close();
    },
  };
}
