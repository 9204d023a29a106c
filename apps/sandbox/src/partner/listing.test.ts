import {
  zIntentToTradeResponse,
  zListPartnerTransactionsQuery,
  zListPartnerTransactionsResponse,
} from '@exchange-kit/contract/partner/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../handling/operation.js';
import {
  btcPurchase,
  call,
  parsed,
  partnerWalletSettlements,
  refusal,
  type SeededPartner,
  seedPartner,
  storeWithSession,
  T0,
  type TestStore,
} from '../testing/partner-calls.js';

let db: TestStore;
let partner: SeededPartner;
let caller: Caller;
let sessionId: string;

/** All created in the same millisecond, T0. */
const created: string[] = [];
const TOTAL = 230;

beforeAll(async () => {
  ({ db, partner, caller, sessionId } = await storeWithSession());
  for (let index = 0; index < TOTAL; index++) {
    const pending = index % 3 === 0;
    const reply = await call(db, 'intentToTrade', {
      body: btcPurchase(sessionId, {
        quantity: '0.01',
        ...(pending && partnerWalletSettlements),
      }),
      now: T0,
    });
    created.push(parsed(zIntentToTradeResponse, reply).payload.transaction_id);
  }
}, 60_000);
afterAll(() => db.close());

/** Lists with the filters as the edge hands them on: numeric text read as a number, then parsed. */
const list = async (filters: Record<string, string> = {}, as: Caller = caller) => {
  const query = zListPartnerTransactionsQuery.parse(
    Object.fromEntries(
      Object.entries(filters).map(([k, v]) => [k, /^\d+$/.test(v) ? Number(v) : v]),
    ),
  );
  const reply = await call(db, 'listPartnerTransactions', {
    path: { public_api_key: partner.publicApiKey },
    query,
    caller: as,
  });
  expect(reply.status).toBe(200);
  return parsed(zListPartnerTransactionsResponse, reply).payload;
};

describe('listPartnerTransactions', () => {
  it('returns at most 100, oldest first, with the selection', async () => {
    const page = await list();
    expect(page.transactions).toHaveLength(100);
    expect(page.selection).toEqual({ limit: 100, count: 100 });
    expect(page.transactions.map((t) => t.transaction_id)).toEqual(created.slice(0, 100));
    const times = page.transactions.map((t) => t.created_at);
    // Created in one millisecond, yet each gets its own, increasing created_at.
    expect(times[0]).toBe(T0);
    expect(times.every((time, index) => index === 0 || time > (times[index - 1] ?? 0))).toBe(true);
  });

  it('pages from the last created_at + 1 without skipping or repeating', async () => {
    const seen: string[] = [];
    let minTs = 0;
    for (let pageNumber = 0; pageNumber < 10; pageNumber++) {
      const page = await list({ min_ts: String(minTs) });
      seen.push(...page.transactions.map((t) => t.transaction_id));
      const last = page.transactions.at(-1);
      if (page.transactions.length < 100 || !last) break;
      minTs = last.created_at + 1;
    }
    expect(seen).toEqual(created);
  });

  it('filters by status and time, and echoes the filters in selection', async () => {
    const all = await list();
    const first = all.transactions[0];
    const tenth = all.transactions[9];
    const window = await list({
      min_ts: String(first?.created_at),
      max_ts: String(tenth?.created_at),
    });
    expect(window.transactions).toHaveLength(10);
    expect(window.selection).toEqual({
      min_ts: first?.created_at,
      max_ts: tenth?.created_at,
      limit: 100,
      count: 10,
    });
    const pending = await list({ status: 'PENDING' });
    expect(pending.transactions.length).toBeGreaterThan(0);
    expect(pending.transactions.every((t) => t.status === 'PENDING' && t.funding_settlement)).toBe(
      true,
    );
    expect(pending.selection.status).toBe('PENDING');
    const none = await list({ intent_id: '00000000-0000-4000-8000-000000000000' });
    expect(none).toEqual({
      transactions: [],
      selection: { intent_id: '00000000-0000-4000-8000-000000000000', limit: 100, count: 0 },
    });
  });

  it('lists only its own partner', async () => {
    const other = await seedPartner(db);
    const reply = await call(db, 'listPartnerTransactions', {
      path: { public_api_key: other.publicApiKey },
      caller: { kind: 'partner', tokenId: 't', userId: 2, partnerId: other.partnerId },
    });
    expect(parsed(zListPartnerTransactionsResponse, reply).payload.transactions).toEqual([]);
    const error = await refusal(
      call(db, 'listPartnerTransactions', { path: { public_api_key: other.publicApiKey }, caller }),
    );
    expect(error.status).toBe(401);
  });
});
