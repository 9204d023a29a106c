import {
  zCreateIntentBody,
  zCreateIntentResponse,
  zIntentToTradeResponse,
  zListPartnerTransactionsResponse,
} from '@exchange-kit/contract/partner/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../handling/operation.js';
import {
  call,
  count,
  newSession,
  parsed,
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

beforeAll(async () => {
  ({ db, partner, caller, sessionId } = await storeWithSession());
}, 60_000);
afterAll(() => db.close());

const paymentRequest = {
  payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '250.00' },
  partner_order_id: 'ORD-2024-000123',
  partner_ref: 'optional external reference',
  partner_tags: ['campaign-spring', 'sku-TSHIRT-01'],
};

const createIntent = (
  body: Record<string, unknown>,
  options: { now?: number; as?: Caller; key?: string } = {},
) =>
  call(db, 'createIntent', {
    body,
    path: { public_api_key: options.key ?? partner.publicApiKey },
    caller: options.as ?? caller,
    now: options.now ?? T0,
  });

async function intentId(body: Record<string, unknown>): Promise<string> {
  return parsed(zCreateIntentResponse, await createIntent(body)).payload.id;
}

/** A buy of the intent's 250.00 USDC payout, paid in ETH. */
const fulfil = (intent_id: string, extra: Record<string, unknown> = {}, now = T0) =>
  call(db, 'intentToTrade', {
    body: {
      session_id: sessionId,
      intent_id,
      side: 'buy',
      symbol: 'USDC/ETH',
      currency: 'USDC',
      quantity: '250',
      ...extra,
    },
    now,
  });

describe('createIntent', () => {
  it('INTENT-STRATEGY-DEFAULT: an intent without strategy is ONE_TO_ONE_ATTEMPTED (200)', async () => {
    const reply = await createIntent({ public_api_key: partner.publicApiKey, ...paymentRequest });
    expect(reply.status).toBe(200);
    const body = parsed(zCreateIntentResponse, reply);
    expect(body).toMatchObject({ success: true, environment: 'SANDBOX' });
    expect(body.payload).toEqual({
      id: body.payload.id,
      created_at: String(T0),
      expires_at: null,
      strategy: 'ONE_TO_ONE_ATTEMPTED',
      funding_settlement: null,
      ...paymentRequest,
    });
  });

  it('keeps strategy ONE_TO_MANY and expires_at as a string of Unix ms', async () => {
    const body = parsed(
      zCreateIntentResponse,
      await createIntent({ ...paymentRequest, strategy: 'ONE_TO_MANY', expires_at: T0 + 60_000 }),
    );
    expect(body.payload).toMatchObject({
      strategy: 'ONE_TO_MANY',
      expires_at: String(T0 + 60_000),
    });
  });

  it('limits partner_order_id to 40 characters', async () => {
    expect(
      zCreateIntentBody.safeParse({ ...paymentRequest, partner_order_id: 'x'.repeat(41) }).success,
    ).toBe(false);
    const reply = await createIntent({ ...paymentRequest, partner_order_id: 'x'.repeat(40) });
    expect(parsed(zCreateIntentResponse, reply).payload.partner_order_id).toHaveLength(40);
  });

  it('refuses a caller that is not a partner token (401)', async () => {
    expect(
      (await refusal(createIntent(paymentRequest, { as: { kind: 'anonymous' } }))).status,
    ).toBe(401);
  });

  it("refuses a partner token acting on another partner's key (401)", async () => {
    const other = await seedPartner(db);
    expect((await refusal(createIntent(paymentRequest, { key: other.publicApiKey }))).status).toBe(
      401,
    );
  });

  it('answers an unknown public_api_key with 404', async () => {
    const error = await refusal(createIntent(paymentRequest, { key: 'pk_nobody' }));
    expect([error.status, error.errors]).toEqual([404, { public_api_key: ['not_found'] }]);
  });

  const payout = paymentRequest.payout_settlement;
  const cases: [string, Record<string, unknown>, Record<string, string[]>][] = [
    [
      'body key differs from the path',
      { public_api_key: 'pk_other' },
      { public_api_key: ['does_not_match_path'] },
    ],
    [
      'no quantity',
      { payout_settlement: { ...payout, quantity: undefined } },
      { 'payout_settlement.quantity': ['required'] },
    ],
    [
      'quantity on both sides',
      { funding_settlement: { method: 'BLOCKCHAIN_TRANSFER', currency: 'ETH', quantity: '1' } },
      { 'funding_settlement.quantity': ['quantity_on_one_side_only'] },
    ],
    [
      'zero quantity',
      { payout_settlement: { ...payout, quantity: '0' } },
      { 'payout_settlement.quantity': ['must_be_positive'] },
    ],
    [
      'quantity finer than a cent',
      { payout_settlement: { ...payout, quantity: '0.001' } },
      { 'payout_settlement.quantity': ['too_precise'] },
    ],
    [
      'unknown currency',
      { payout_settlement: { ...payout, currency: 'XYZ' } },
      { 'payout_settlement.currency': ['unsupported_currency'] },
    ],
    [
      'delegated broadcast payout',
      { payout_settlement: { ...payout, method: 'BLOCKCHAIN_DELEGATED_BROADCAST' } },
      { 'payout_settlement.method': ['not_allowed_for_payout'] },
    ],
    [
      'unpriced pair',
      { funding_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC' } },
      { 'funding_settlement.currency': ['unsupported_pair'] },
    ],
    ['expiry in the past', { expires_at: T0 - 1 }, { expires_at: ['must_be_in_the_future'] }],
  ];
  for (const [name, change, errors] of cases) {
    it(`${name}: 422 naming the field, nothing stored`, async () => {
      const before = await count(db, 'intent');
      const error = await refusal(createIntent({ ...paymentRequest, ...change }));
      expect([error.status, error.errors]).toEqual([422, errors]);
      expect(await count(db, 'intent')).toBe(before);
    });
  }
});

describe('fulfilling intents', () => {
  it('INTENT-ONE-TO-ONE-CONSUMED: the first attempt creates a transaction, the second is refused (422)', async () => {
    const id = await intentId(paymentRequest);
    const first = await fulfil(id);
    expect(first.status).toBe(202);
    const error = await refusal(fulfil(id));
    expect(error.status).toBe(422);
    expect(error.errors).toEqual({ intent_id: ['already_attempted'] });
    expect(error.message).toContain(id);
  });

  it('INTENT-ONE-TO-ONE-CONSUMED: of concurrent attempts exactly one goes through', async () => {
    const id = await intentId(paymentRequest);
    const attempts = Array.from({ length: 5 }, () =>
      fulfil(id).then(
        (reply) => reply.status,
        (error: { status: number }) => error.status,
      ),
    );
    const statuses = await Promise.all(attempts);
    expect(statuses.filter((status) => status === 202)).toHaveLength(1);
    expect(statuses.filter((status) => status === 422)).toHaveLength(4);
  });

  it('INTENT-ONE-TO-ONE-CONSUMED: a retry of the consuming attempt (same client_ref) returns its transaction', async () => {
    const id = await intentId(paymentRequest);
    const first = parsed(
      zIntentToTradeResponse,
      await fulfil(id, { client_ref: 'retry-1' }),
    ).payload;
    const retry = parsed(
      zIntentToTradeResponse,
      await fulfil(id, { client_ref: 'retry-1' }),
    ).payload;
    expect(retry.transaction_id).toBe(first.transaction_id);
  });

  it('INTENT-ONE-TO-ONE-CONSUMED: showing the widget with the intent does not consume it', async () => {
    const id = await intentId(paymentRequest);
    const config = { public_api_key: partner.publicApiKey, config_version: '1.2', intent_id: id };
    const session = await call(db, 'createSession', {
      body: { public_api_key: partner.publicApiKey, config },
    });
    expect(session.status).toBe(200);
    expect((await fulfil(id)).status).toBe(202);
  });

  it('INTENT-ONE-TO-ONE-CONSUMED: a refused first attempt does not consume the intent', async () => {
    const id = await intentId(paymentRequest);
    await refusal(fulfil(id, { quantity: '1' }));
    expect((await fulfil(id)).status).toBe(202);
  });

  it('INTENT-ONE-TO-MANY-REUSABLE: every attempt creates a transaction carrying the partner fields', async () => {
    const id = await intentId({ ...paymentRequest, strategy: 'ONE_TO_MANY' });
    const created: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const reply = await fulfil(id);
      expect(reply.status).toBe(202);
      created.push(parsed(zIntentToTradeResponse, reply).payload.transaction_id);
    }
    expect(new Set(created).size).toBe(3);
    const listing = parsed(
      zListPartnerTransactionsResponse,
      await call(db, 'listPartnerTransactions', {
        path: { public_api_key: partner.publicApiKey },
        query: { intent_id: id },
        caller,
      }),
    );
    expect(listing.payload.transactions.map((t) => t.transaction_id)).toEqual(created);
    for (const transaction of listing.payload.transactions) {
      expect(transaction).toMatchObject({
        intent_id: id,
        partner_order_id: paymentRequest.partner_order_id,
        partner_ref: paymentRequest.partner_ref,
        partner_tags: paymentRequest.partner_tags,
      });
    }
  });

  it("applies the intent's payout method and fixed quantity", async () => {
    const id = await intentId({ ...paymentRequest, strategy: 'ONE_TO_MANY' });
    const { payload } = parsed(
      zIntentToTradeResponse,
      await fulfil(id, {
        quantity: '250.0',
        funding_settlement: { method: 'BLOCKCHAIN_TRANSFER' },
      }),
    );
    expect(payload.status).toBe('PENDING');
    expect(payload.payout_settlement).toMatchObject({
      method: 'SERVICE_PARTNER_WALLET',
      currency: 'USDC',
      quantity: '250.0',
      status: 'NOT_STARTED',
    });
    // 250 USDC / 3025 = 0.0826446280... ETH, paid by the user: rounded up.
    expect(payload.funding_settlement).toMatchObject({
      method: 'BLOCKCHAIN_TRANSFER',
      currency: 'ETH',
      quantity: '0.08264463',
      status: 'WAITING_USER',
    });
  });

  const mismatches: [string, Record<string, unknown>, Record<string, string[]>][] = [
    ['another quantity', { quantity: '251' }, { quantity: ['does_not_match_intent'] }],
    [
      'the other currency',
      { currency: 'ETH', quantity: '1' },
      { currency: ['does_not_match_intent'] },
    ],
    [
      'another payout currency',
      { symbol: 'BTC/ETH', currency: 'BTC' },
      { symbol: ['does_not_match_intent'] },
    ],
    [
      'another payout method',
      { payout_settlement: { method: 'BLOCKCHAIN_TRANSFER' } },
      { 'payout_settlement.method': ['does_not_match_intent'] },
    ],
  ];
  for (const [name, change, errors] of mismatches) {
    it(`refuses ${name} than the intent fixes (422)`, async () => {
      const id = await intentId({ ...paymentRequest, strategy: 'ONE_TO_MANY' });
      const error = await refusal(fulfil(id, change));
      expect([error.status, error.errors]).toEqual([422, errors]);
    });
  }

  it('refuses an expired intent (422)', async () => {
    const id = await intentId({
      ...paymentRequest,
      strategy: 'ONE_TO_MANY',
      expires_at: T0 + 1000,
    });
    expect((await fulfil(id, {}, T0 + 999)).status).toBe(202);
    const error = await refusal(fulfil(id, {}, T0 + 1000));
    expect([error.status, error.errors]).toEqual([422, { intent_id: ['expired'] }]);
  });

  it("answers another partner's intent as not found (404)", async () => {
    const id = await intentId(paymentRequest);
    const other = await seedPartner(db);
    const otherSession = await newSession(db, other.publicApiKey);
    const error = await refusal(
      call(db, 'intentToTrade', {
        body: {
          session_id: otherSession,
          intent_id: id,
          side: 'buy',
          symbol: 'USDC/ETH',
          currency: 'USDC',
          quantity: '250',
        },
      }),
    );
    expect([error.status, error.errors]).toEqual([404, { intent_id: ['not_found'] }]);
  });
});
