/**
 * Concurrent calls on a real PostgreSQL, each in its own connection and transaction and without
 * the sandbox's global write lock, so only the row locks of the partner domain keep them apart.
 * Runs in the PostgreSQL pass of the tests (scripts/with-postgres.mjs), which sets
 * SANDBOX_TEST_DATABASE_URL; PGlite, one connection, cannot run calls side by side.
 */
import { zIntentToTradeResponse } from '@exchange-kit/contract/partner/schemas';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller, Handler, Reply } from '../domain/operation.js';
import { asHttpError } from '../http/refusals.js';
import { freshDatabase } from '../postgres.test-support.js';
import { type Database, openDatabase } from '../store/database.js';
import { migrate } from '../store/migrations.js';
import {
  newSession,
  newWalletIntent,
  parsed,
  type SeededPartner,
  seedPartner,
  T0,
} from './calls.test-support.js';
import { partnerHandlers } from './handlers.js';

const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;

describe('concurrent calls on PostgreSQL without the write lock', () => {
  let db: Database;
  let pool: pg.Pool;
  let partner: SeededPartner;
  let sessionId: string;

  beforeAll(async () => {
    const url = await freshDatabase(serverUrl ?? '');
    db = await openDatabase({ databaseUrl: url });
    await migrate(db);
    pool = new pg.Pool({ connectionString: url, max: 8 });
    partner = await seedPartner(db);
    sessionId = await newSession(db, partner.publicApiKey);
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await db?.close();
  });

  /** One call in its own connection and transaction; a refusal resolves to its status. */
  async function unlocked(handler: Handler, body: unknown): Promise<Reply | number> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const reply = await handler({
        operationId: 'test',
        path: {},
        query: {},
        body,
        caller: { kind: 'anonymous' } satisfies Caller,
        db: client,
        now: T0,
      });
      await client.query('COMMIT');
      return reply;
    } catch (error) {
      await client.query('ROLLBACK');
      const refused = asHttpError(error);
      if (refused) return refused.status;
      throw error;
    } finally {
      client.release();
    }
  }

  const trade = (extra: Record<string, unknown>) =>
    unlocked(partnerHandlers.intentToTrade as Handler, {
      session_id: sessionId,
      side: 'buy',
      symbol: 'USDC/ETH',
      currency: 'USDC',
      quantity: '10',
      ...extra,
    });

  it('INTENT-ONE-TO-ONE-CONSUMED: exactly one of concurrent attempts goes through', async () => {
    const intent = await newWalletIntent(db, partner, '10');
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => trade({ intent_id: intent.id })),
    );
    const statuses = outcomes.map((outcome) =>
      typeof outcome === 'number' ? outcome : outcome.status,
    );
    expect(statuses.filter((status) => status === 202)).toHaveLength(1);
    expect(statuses.filter((status) => status === 422)).toHaveLength(5);
  });

  it('concurrent creations with one client_ref make one transaction', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => trade({ client_ref: 'same-ref' })),
    );
    const ids = outcomes.map(
      (outcome) => parsed(zIntentToTradeResponse, outcome as Reply).payload.transaction_id,
    );
    expect(new Set(ids).size).toBe(1);
  });

  it('methods set concurrently on both sides settle the transaction to PENDING', async () => {
    const created = parsed(zIntentToTradeResponse, (await trade({})) as Reply).payload;
    const setMethod = (direction: string) =>
      unlocked(partnerHandlers.setSettlementMethod as Handler, {
        transaction_id: created.transaction_id,
        direction,
        method: 'SERVICE_PARTNER_WALLET',
      });
    const outcomes = await Promise.all([setMethod('FUNDING'), setMethod('PAYOUT')]);
    expect(outcomes.map((outcome) => (outcome as Reply).status)).toEqual([202, 202]);
    const { rows } = await pool.query('SELECT status FROM qe_transactions WHERE id = $1', [
      created.transaction_id,
    ]);
    expect(rows[0]?.status).toBe('PENDING');
  });

  it('concurrent creations in one millisecond get distinct created_at values', async () => {
    await Promise.all(Array.from({ length: 8 }, () => trade({})));
    const { rows } = await pool.query<{ n: string; distinct_times: string }>(
      'SELECT count(*) AS n, count(DISTINCT created_at) AS distinct_times FROM qe_transactions',
    );
    expect(rows[0]?.distinct_times).toBe(rows[0]?.n);
  });
});
