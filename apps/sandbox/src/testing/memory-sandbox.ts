/**
 * The sandbox without a database or a socket: the demo state built as records in memory, a
 * Sequencer on a store that keeps nothing, and calls answered by the same call pipeline the
 * HTTP edge hands its calls to, so a rule is tested with the answers an HTTP caller gets.
 */
import { type ApiToken, type ServiceAuthRequest, serviceAuthJwt } from '@exchange-kit/core/auth';
import { type DemoCredentials, defaultCredentials } from '../config.js';
import {
  demoAssets,
  demoCurrencies,
  demoLoanBook,
  demoPrices,
  demoProducts,
  demoUserId,
  firstOrderId,
  houseRecord,
  marketMakerId,
  type NewProduct,
  newApiToken,
  placeDemoBook,
  productRecord,
  secondDemoUserId,
  startingAccounts,
  userRecord,
} from '../demo-market.js';
import { depositAddress, houseUserId } from '../exchange/ledger.js';
import type { Reply } from '../handling/operation.js';
import { type CallPipelineOptions, callPipeline, parseQuery } from '../http/call-pipeline.js';
import { buildRoutes, findRoute } from '../http/router.js';
import { parseBody } from '../http/validate.js';
import { findSessionSecret } from '../partner/handlers.js';
import { freshDatabase } from '../postgres.test-support.js';
import { sandboxHandlers, sandboxStoredReads } from '../sandbox-handlers.js';
import { SandboxState } from '../state/sandbox-state.js';
import { Sequencer } from '../state/sequencer.js';
import { type Database, openDatabase } from '../store/database.js';
import { migrate } from '../store/migrations.js';
import { type NewUser, seed } from '../store/seed.js';
import type { Client, ParsedResponse, RequestOptions } from '../test-support.js';
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
}

export interface PartnerApplicationOwner {
  userId: number;
  partnerId: number;
  publicApiKey: string;
  token: ApiToken;
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
  /** A new user, funded as the store's `addUser` funds one, with a client signing as that user. */
  addUser(): NewUser & { call: Client };
  /** Another API token of a user: each token has a nonce sequence of its own. */
  addToken(userId: number): ApiToken;
  /** A product with an empty book; its id. */
  addProduct(product: NewProduct): number;
  /** A new user owning one partner application, with an API token. */
  addPartner(): PartnerApplicationOwner;
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

/** A user, an API token of theirs and their accounts, funded with the starting balances. */
function addUserTo(
  state: SandboxState,
  now: number,
  userId: number,
  firstName?: string,
  token = newApiToken(userId),
) {
  const { exchange } = state;
  exchange.users.set(userId, userRecord(userId, firstName));
  exchange.tokens.set(token.tokenId, { userId, secret: token.tokenSecret });
  const { accounts, entries } = startingAccounts(
    userId,
    depositAddress,
    { account: () => exchange.next.account++, entry: () => exchange.next.entry++ },
    now,
  );
  for (const account of accounts) exchange.addAccount(account);
  for (const entry of entries) exchange.addEntry(entry);
  return token;
}

/** The demo state `store/seed.ts` writes to a new store, as records. */
function demoState(credentials: DemoCredentials, now: number): SandboxState {
  const state = new SandboxState();
  const { exchange, partner } = state;
  exchange.next.order = firstOrderId;
  for (const currency of demoCurrencies()) exchange.currencies.set(currency.code, currency);
  for (const product of demoProducts) {
    exchange.products.set(product.id, productRecord(product.id, product));
  }
  for (const [currency, side, rate, amount] of demoLoanBook) {
    const levels = exchange.loanBook.get(currency) ?? { bid: [], ask: [] };
    levels[side].push({ rate, amount });
    exchange.loanBook.set(currency, levels);
  }
  for (const asset of demoAssets()) partner.assets.set(asset.code, asset);
  partner.prices.push(...demoPrices());
  addUserTo(state, now, marketMakerId, 'Market maker');
  exchange.users.set(houseUserId, houseRecord());
  addUserTo(state, now, demoUserId, 'Demo', {
    tokenId: credentials.tokenId,
    tokenSecret: credentials.tokenSecret,
  });
  addUserTo(state, now, secondDemoUserId, 'Second demo', {
    tokenId: credentials.secondTokenId,
    tokenSecret: credentials.secondTokenSecret,
  });
  partner.addApplication({
    id: 1,
    userId: demoUserId,
    publicApiKey: credentials.publicApiKey,
    name: 'Demo partner',
  });
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
    sequencer = await Sequencer.open(memoryStorage(demoState(credentials, now())));
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
  // Numbered as the store numbers users added after the seed: from 2001.
  let lastUserId = 2000;

  const request: MemorySandbox['request'] = async (method, url, requestOptions = {}) => {
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    const found = findRoute(routes, method, pathname);
    if (found.kind !== 'matched') throw new Error(`No operation for ${method} ${pathname}`);
    const { route, path } = found.match;
    const text =
      requestOptions.rawBody ??
      (requestOptions.body === undefined ? '' : JSON.stringify(requestOptions.body));
    const headers = Object.fromEntries(
      Object.entries(requestOptions.headers ?? {}).map(([name, value]) => [
        name.toLowerCase(),
        value,
      ]),
    );
    const reply = await answer({
      route,
      url,
      path,
      query: parseQuery(queryAt === -1 ? '' : url.slice(queryAt + 1)),
      body: parseBody(route, text, headers['content-type'] ?? 'application/json'),
      headers,
      address: requestOptions.address ?? '127.0.0.1',
      now: now(),
    });
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
      lastUserId += 1;
      const userId = lastUserId;
      const token = addUserTo(sequencer.state, now(), userId);
      return { userId, ...token, call: clientFor(token) };
    },
    addToken(userId) {
      const token = newApiToken(userId);
      sequencer.state.exchange.tokens.set(token.tokenId, { userId, secret: token.tokenSecret });
      return token;
    },
    addProduct(product) {
      const { products } = sequencer.state.exchange;
      const id = product.id ?? Math.max(0, ...products.keys()) + 1;
      products.set(id, productRecord(id, product));
      return id;
    },
    addPartner() {
      lastUserId += 1;
      const userId = lastUserId;
      const { exchange, partner } = sequencer.state;
      exchange.users.set(userId, userRecord(userId, 'Partner'));
      const token = newApiToken(userId);
      exchange.tokens.set(token.tokenId, { userId, secret: token.tokenSecret });
      const partnerId = Math.max(0, ...partner.applications.keys()) + 1;
      const publicApiKey = `pk_test_${userId}`;
      partner.addApplication({ id: partnerId, userId, publicApiKey, name: 'Test' });
      return { userId, partnerId, publicApiKey, token };
    },
    async close() {
      await sequencer.settled();
      await database?.close();
    },
  };
}
