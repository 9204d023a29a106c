/**
 * Test support: a migrated in-memory store with its sequencer, and calls of the partner
 * handlers as the HTTP layer makes them (body validated against the operation's schema, each
 * call decided by the sequencer and stored with its batch).
 */
import * as schemas from '@exchange-kit/contract/partner/schemas';
import * as z from 'zod/mini';
import type { Caller, Handler, Reply } from '../domain/operation.js';
import { asHttpError, HttpError } from '../http/refusals.js';
import { freshDatabase } from '../postgres.test-support.js';
import { Sequencer } from '../state/sequencer.js';
import { type Database, openDatabase } from '../store/database.js';
import { migrate } from '../store/migrations.js';
import { sandboxStorage, writeDirectly } from '../store/sandbox-storage.js';
import { partnerHandlers } from './handlers.js';

export const T0 = 1_716_000_000_000;

/**
 * A store and the sequencer deciding calls on it, as the running sandbox has them: what a
 * test writes through `transaction` is read back into memory, and `read` sees every call
 * decided so far.
 */
export interface TestStore extends Database {
  sequencer: Sequencer;
}

/**
 * A fresh, migrated store: in-memory PGlite, or a new database on the PostgreSQL server named by
 * SANDBOX_TEST_DATABASE_URL, so the same tests also prove the SQL on a real server.
 */
export async function migratedStore(): Promise<TestStore> {
  const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;
  const db = serverUrl
    ? await openDatabase({ databaseUrl: await freshDatabase(serverUrl) })
    : await openDatabase({ memory: true });
  await migrate(db);
  const sequencer = await Sequencer.open(sandboxStorage(db));
  return {
    sequencer,
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

let nextUser = 900_000;

export interface SeededPartner {
  partnerId: number;
  publicApiKey: string;
}

/** A user owning one partner application; returns the partner id and its public key. */
export async function seedPartner(db: Database): Promise<SeededPartner> {
  nextUser += 1;
  const userId = nextUser;
  const publicApiKey = `pk_test_${userId}`;
  const partnerId = await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO users (id, email, first_name, last_name, country, currency, language,
         kyc_status, app_vendor_id, affiliate_code, email_confirmed_at_s)
       VALUES ($1, $2, 'Test', 'Partner', 'SG', 'USD', 'en', 'approved', 1, 'AFF', 0)`,
      [userId, `partner${userId}@example.test`],
    );
    const { rows } = await tx.query<{ id: number }>(
      `INSERT INTO partner_applications (user_id, public_api_key, name) VALUES ($1, $2, 'Test')
       RETURNING id`,
      [userId, publicApiKey],
    );
    return Number(rows[0]?.id);
  });
  return { partnerId, publicApiKey };
}

export type OperationId = keyof typeof partnerHandlers;

export interface Call {
  body?: unknown;
  path?: Record<string, string>;
  /** As the edge hands it on: parsed by the operation's query schema. */
  query?: Record<string, unknown>;
  caller?: Caller;
  now?: number;
}

const capitalised = (operationId: string) => operationId[0]?.toUpperCase() + operationId.slice(1);

/** Calls an operation's handler through the sequencer; a refusal rejects as the edge answers it. */
export async function call(
  db: TestStore,
  operationId: OperationId,
  input: Call = {},
): Promise<Reply> {
  const bodySchema = (schemas as unknown as Record<string, z.core.$ZodType | undefined>)[
    `z${capitalised(operationId)}Body`
  ];
  const body =
    bodySchema && input.body !== undefined ? z.parse(bodySchema, input.body) : input.body;
  const handler = partnerHandlers[operationId] as Handler;
  const answered = db.sequencer.run((journal) =>
    handler({
      operationId,
      path: input.path ?? {},
      query: input.query ?? {},
      body,
      caller: input.caller ?? { kind: 'anonymous' },
      journal,
      now: input.now ?? T0,
    }),
  );
  return answered.catch((error: unknown) => {
    throw asHttpError(error) ?? error;
  });
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

export async function count(db: Database, table: string): Promise<number> {
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

/** A fresh store holding a partner and a session of it, where most tests of a file work. */
export async function storeWithSession(): Promise<{
  db: TestStore;
  partner: SeededPartner;
  /** The partner's API token. */
  caller: Caller;
  sessionId: string;
}> {
  const db = await migratedStore();
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
