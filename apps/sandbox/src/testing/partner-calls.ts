/**
 * Test support: partner calls answered by the sandbox's call pipeline (authentication,
 * validation, nonces, the Sequencer), on the demo state in memory or on a migrated store,
 * so a test asserts what an HTTP caller of the same call is answered.
 */
import * as schemas from '@exchange-kit/contract/partner/schemas';
import { sessionAuthJwt } from '@exchange-kit/core/auth';
import * as z from 'zod/mini';
import type { Caller, Reply } from '../handling/operation.js';
import { callPipeline, type ParsedCall, parseQuery } from '../http/call-pipeline.js';
import { HttpError } from '../http/refusals.js';
import { buildRoutes, type Route } from '../http/router.js';
import { findSessionSecret, type partnerHandlers } from '../partner/handlers.js';
import { freshDatabase } from '../postgres.test-support.js';
import { sandboxHandlers, sandboxStoredReads } from '../sandbox-handlers.js';
import { addPartner } from '../seeding.js';
import type { RecordKind } from '../state/sandbox-state.js';
import { Sequencer } from '../state/sequencer.js';
import { type Database, openDatabase } from '../store/database.js';
import { migrate } from '../store/migrations.js';
import { sandboxStorage, writeDirectly } from '../store/sandbox-storage.js';
import { memorySandbox, signedNow } from './memory-sandbox.js';

export const T0 = 1_716_000_000_000;

/** A sequencer deciding partner calls, and the pipeline answering them. */
export interface TestStore {
  sequencer: Sequencer;
  answer(call: ParsedCall): Promise<Reply>;
  /** A user owning one partner application, with an API token. */
  addPartner(): Promise<SeededPartner>;
  close(): Promise<void>;
}

export interface SeededPartner {
  partnerId: number;
  publicApiKey: string;
}

/** The demo state in memory: no database at all. */
export async function memoryStore(): Promise<TestStore> {
  const sandbox = await memorySandbox();
  return {
    sequencer: sandbox.sequencer,
    answer: pipelineOf(sandbox.sequencer),
    addPartner: async () => sandbox.addPartner(),
    close: () => sandbox.sequencer.settled(),
  };
}

function pipelineOf(sequencer: Sequencer): TestStore['answer'] {
  return callPipeline({
    sequencer,
    handlers: sandboxHandlers('http://sandbox.invalid'),
    storedReads: sandboxStoredReads,
    findSessionSecret,
  });
}

/** Partner calls on a store: its rows can be read and written directly. */
export type StoredTestStore = TestStore & Database;

/**
 * A fresh, migrated store, for tests of what the store does: in-memory PGlite, or a new
 * database on the PostgreSQL server named by SANDBOX_TEST_DATABASE_URL. What a test writes
 * through `transaction` is read back into memory, and `read` sees every call decided so far.
 */
export async function migratedStore(): Promise<StoredTestStore> {
  const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;
  const db = serverUrl
    ? await openDatabase({ databaseUrl: await freshDatabase(serverUrl) })
    : await openDatabase({ memory: true });
  await migrate(db);
  const sequencer = await Sequencer.open(sandboxStorage(db));
  return {
    sequencer,
    answer: pipelineOf(sequencer),
    addPartner: () => sequencer.run(addPartner),
    transaction: (work) => writeDirectly(db, sequencer, work),
    read: async (work) => {
      await sequencer.settled();
      return db.read(work);
    },
    apply: (statements, prepared) => db.apply(statements, prepared),
    close: async () => {
      await sequencer.settled();
      await db.close();
    },
  };
}

/** A user owning one partner application; returns the partner id and its public key. */
export function seedPartner(db: TestStore): Promise<SeededPartner> {
  return db.addPartner();
}

export type OperationId = keyof typeof partnerHandlers;

export interface Call {
  body?: unknown;
  path?: Record<string, string>;
  query?: Record<string, string | number>;
  /** Who signs the call: a partner's API token, a session's secret, or nobody. */
  caller?: Caller;
  now?: number;
}

const partnerRoutes = new Map<string, Route>(
  buildRoutes()
    .filter((route) => route.api === 'partner')
    .map((route) => [route.operation.operationId, route]),
);

/** The path a call is sent to: the template's parameters filled in, then the query. */
function urlOf(route: Route, input: Call): string {
  const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(input.path?.[name] ?? ''),
  );
  const query = new URLSearchParams(
    Object.entries(input.query ?? {}).map(([name, value]) => [name, String(value)]),
  ).toString();
  return query ? `${path}?${query}` : path;
}

/** The credentials `caller` sends: a partner token's delegated JWT, or a session Bearer JWT. */
function credentialsOf(db: TestStore, caller: Caller, url: string): Record<string, string> {
  const { exchange, partner } = db.sequencer.state;
  if (caller.kind === 'partner') {
    const owner = partner.applications.get(caller.partnerId)?.userId;
    const [tokenId, token] = [...exchange.tokens].find(([, { userId }]) => userId === owner) ?? [];
    if (!tokenId || !token) throw new Error(`No token owns partner ${caller.partnerId}`);
    const jwt = signedNow({ tokenId, tokenSecret: token.secret }, { path: url, delegate: true });
    return { 'x-service-auth': jwt };
  }
  if (caller.kind === 'session') {
    // A session memory does not hold has no secret: its JWT is signed with one it never had.
    const sessionSecret = partner.sessions.get(caller.sessionId)?.secret ?? 'not-its-secret';
    const jwt = sessionAuthJwt({ sessionId: caller.sessionId, sessionSecret }, url);
    if (typeof jwt !== 'string') throw new Error('This platform cannot sign synchronously');
    return { authorization: `Bearer ${jwt}` };
  }
  if (caller.kind === 'anonymous') return {};
  throw new Error(`Partner calls are not signed as a ${caller.kind} caller`);
}

/** A refused call as the pipeline answers it, in the partner envelope or as plain text. */
function refusalOf(reply: Reply): HttpError {
  if (typeof reply.body === 'string') return new HttpError(reply.status, reply.body);
  const { message, errors } = reply.body as { message: string; errors?: Record<string, string[]> };
  return new HttpError(reply.status, message, errors);
}

/**
 * Sends a partner call through the pipeline, signed as `caller`, its body as JSON text
 * reads; a refusal rejects with the status and errors it is answered with.
 */
export async function call(
  db: TestStore,
  operationId: OperationId,
  input: Call = {},
): Promise<Reply> {
  const route = partnerRoutes.get(operationId);
  if (!route) throw new Error(`No partner operation ${operationId}`);
  const url = urlOf(route, input);
  const queryAt = url.indexOf('?');
  const reply = await db.answer({
    route,
    url,
    path: input.path ?? {},
    query: parseQuery(queryAt === -1 ? '' : url.slice(queryAt + 1)),
    body: input.body === undefined ? undefined : JSON.parse(JSON.stringify(input.body)),
    headers: credentialsOf(db, input.caller ?? { kind: 'anonymous' }, url),
    address: '127.0.0.1',
    now: input.now ?? T0,
  });
  if (reply.status >= 400) throw refusalOf(reply);
  return reply;
}

/** A refused call as the edge answers it: status and errors (fails the test if the call succeeds). */
export async function refusal(reply: Promise<Reply>): Promise<HttpError> {
  try {
    const answer = await reply;
    throw new Error(`expected a refusal, got ${answer.status} ${JSON.stringify(answer.body)}`);
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
}

/** The response body, checked against the operation's 2xx schema of the spec. */
export function parsed<S extends z.core.$ZodType>(schema: S, reply: Reply): z.infer<S> {
  return z.parse(schema, reply.body);
}

const partnerRecords = {
  session: (db) => db.sequencer.state.partner.sessions.size,
  intent: (db) => db.sequencer.state.partner.intents.size,
  transaction: (db) => db.sequencer.state.partner.transactions.size,
} satisfies Partial<Record<RecordKind, (db: TestStore) => number>>;

/** How many records of a kind the sandbox holds, in memory. */
export function count(db: TestStore, kind: keyof typeof partnerRecords): number {
  return partnerRecords[kind](db);
}

/** How many rows a table of the store holds once every call so far is stored. */
export async function storedCount(db: Database, table: string): Promise<number> {
  const { rows } = await db.read((tx) =>
    tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`),
  );
  return Number(rows[0]?.n);
}

/** A fresh session of a partner. */
export async function newSession(db: TestStore, publicApiKey: string): Promise<string> {
  const reply = await call(db, 'createSession', { body: { public_api_key: publicApiKey } });
  return parsed(schemas.zCreateSessionResponse, reply).payload.session_id;
}

/** The caller a partner's API token makes of the handlers. */
function partnerToken(partnerId: number): Caller {
  return { kind: 'partner', tokenId: 'tok', userId: 1, partnerId };
}

/** The demo state in memory holding a new partner and a session of it, where most tests work. */
export async function storeWithSession(): Promise<{
  db: TestStore;
  partner: SeededPartner;
  /** The partner's API token. */
  caller: Caller;
  sessionId: string;
}> {
  const db = await memoryStore();
  const partner = await seedPartner(db);
  const sessionId = await newSession(db, partner.publicApiKey);
  return { db, partner, caller: partnerToken(partner.partnerId), sessionId };
}

/** A new intent of `partner` paying `quantity` USDC out to the partner's own wallet. */
export async function newWalletIntent(
  db: TestStore,
  partner: SeededPartner,
  quantity: string,
  extra: Record<string, unknown> = {},
) {
  const reply = await call(db, 'createIntent', {
    body: {
      payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity },
      ...extra,
    },
    path: { public_api_key: partner.publicApiKey },
    caller: partnerToken(partner.partnerId),
  });
  return parsed(schemas.zCreateIntentResponse, reply).payload;
}

/** Both settlements in the partner's wallets: with nothing left to give, a trade is PENDING. */
export const partnerWalletSettlements = {
  funding_settlement: { method: 'SERVICE_PARTNER_WALLET' },
  payout_settlement: { method: 'SERVICE_PARTNER_WALLET' },
};

/** An intent_to_trade body buying 0.015 BTC with USDC in `sessionId`; `extra` adds or overrides. */
export function btcPurchase(sessionId: string, extra: Record<string, unknown> = {}) {
  return {
    session_id: sessionId,
    side: 'buy',
    symbol: 'BTC/USDC',
    currency: 'BTC',
    quantity: '0.015',
    ...extra,
  };
}
