/**
 * Concurrent partner calls on a real PostgreSQL: the sequencer decides them one at a time on
 * the state in memory and stores them with group commit, so no row lock is needed to keep
 * them apart. Runs in the PostgreSQL pass of the tests (scripts/with-postgres.mjs), which sets
 * SANDBOX_TEST_DATABASE_URL.
 */
import { zIntentToTradeResponse } from '@exchange-kit/contract/partner/schemas';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../handling/operation.js';
import { HttpError } from '../http/refusals.js';
import {
  call,
  migratedStore,
  newSession,
  newWalletIntent,
  parsed,
  type SeededPartner,
  type StoredTestStore,
  seedPartner,
} from '../testing/partner-calls.js';

describe('concurrent partner calls on PostgreSQL', () => {
  let db: StoredTestStore;
  let partner: SeededPartner;
  let sessionId: string;

  beforeAll(async () => {
    db = await migratedStore();
    partner = await seedPartner(db);
    sessionId = await newSession(db, partner.publicApiKey);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  /** The store as another client of the database sees it, once every call is committed. */
  async function storeQuery<Row extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
    await db.sequencer.settled();
    return db.read((tx) => tx.query<Row>(sql, params));
  }

  /** A call; a refusal resolves to its status. */
  async function settled(reply: Promise<Reply>): Promise<Reply | number> {
    try {
      return await reply;
    } catch (error) {
      if (error instanceof HttpError) return error.status;
      throw error;
    }
  }

  const trade = (extra: Record<string, unknown>) =>
    settled(
      call(db, 'intentToTrade', {
        body: {
          session_id: sessionId,
          side: 'buy',
          symbol: 'USDC/ETH',
          currency: 'USDC',
          quantity: '10',
          ...extra,
        },
      }),
    );

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
    const { rows } = await storeQuery<{ consumed_at: number | null }>(
      'SELECT consumed_at FROM qe_intents WHERE id = $1',
      [intent.id],
    );
    expect(rows[0]?.consumed_at).not.toBeNull();
  });

  it('concurrent creations with one client_ref make one transaction', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => trade({ client_ref: 'same-ref' })),
    );
    const ids = outcomes.map(
      (outcome) => parsed(zIntentToTradeResponse, outcome as Reply).payload.transaction_id,
    );
    expect(new Set(ids).size).toBe(1);
    const { rows } = await storeQuery<{ n: number }>(
      "SELECT count(*)::int AS n FROM qe_transactions WHERE client_ref = 'same-ref'",
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('methods set concurrently on both sides settle the transaction to PENDING', async () => {
    const created = parsed(zIntentToTradeResponse, (await trade({})) as Reply).payload;
    const setMethod = (direction: string) =>
      settled(
        call(db, 'setSettlementMethod', {
          body: {
            transaction_id: created.transaction_id,
            direction,
            method: 'SERVICE_PARTNER_WALLET',
          },
        }),
      );
    const outcomes = await Promise.all([setMethod('FUNDING'), setMethod('PAYOUT')]);
    expect(outcomes.map((outcome) => (outcome as Reply).status)).toEqual([202, 202]);
    const { rows } = await storeQuery<{ status: string }>(
      'SELECT status FROM qe_transactions WHERE id = $1',
      [created.transaction_id],
    );
    expect(rows[0]?.status).toBe('PENDING');
  });

  it('concurrent creations in one millisecond get distinct created_at values', async () => {
    await Promise.all(Array.from({ length: 8 }, () => trade({})));
    const { rows } = await storeQuery<{ n: number; distinct_times: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT created_at)::int AS distinct_times FROM qe_transactions',
    );
    expect(rows[0]?.distinct_times).toBe(rows[0]?.n);
  });
});
