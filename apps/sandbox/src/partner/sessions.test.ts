import {
  zCreateSessionResponse,
  zIntentToTradeResponse,
} from '@exchange-kit/contract/partner/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  btcPurchase,
  call,
  count,
  migratedStore,
  newWalletIntent,
  parsed,
  refusal,
  type SeededPartner,
  seedPartner,
  type TestStore,
} from './calls.test-support.js';
import { findSessionSecret } from './handlers.js';

let db: TestStore;
let partner: SeededPartner;

beforeAll(async () => {
  db = await migratedStore();
  partner = await seedPartner(db);
}, 60_000);
afterAll(() => db.close());

describe('createSession', () => {
  it('STATUS-200-SUCCESS: creates a session of a known public_api_key', async () => {
    const reply = await call(db, 'createSession', {
      body: { public_api_key: partner.publicApiKey, user_locale: 'ja-JP' },
    });
    expect(reply.status).toBe(200);
    const body = parsed(zCreateSessionResponse, reply);
    expect(body).toMatchObject({ success: true, environment: 'SANDBOX' });
    const session = body.payload;
    expect(session).toMatchObject({
      environment: 'SANDBOX',
      client_info: { suggested_country: 'JP' },
      default_transaction: {
        funding_settlement: { currency: 'USDC' },
        payout_settlement: { currency: 'BTC' },
      },
      widget_configuration: null,
    });
    expect(session._links.terms_of_service.href).toMatch(/^https:\/\//);
    expect(session.session_secret).not.toBe(session.session_id);
    const { state } = db.sequencer;
    expect(findSessionSecret(state, session.session_id)).toBe(session.session_secret);
    expect(findSessionSecret(state, 'not-a-uuid')).toBeUndefined();
    // Read back from the store as it was written.
    await db.sequencer.reload();
    expect(findSessionSecret(db.sequencer.state, session.session_id)).toBe(session.session_secret);
  });

  it('never sends the session secret again', async () => {
    const { payload } = parsed(
      zCreateSessionResponse,
      await call(db, 'createSession', { body: { public_api_key: partner.publicApiKey } }),
    );
    const trade = await call(db, 'intentToTrade', {
      body: btcPurchase(payload.session_id, { quantity: '1' }),
    });
    parsed(zIntentToTradeResponse, trade);
    expect(JSON.stringify(trade.body)).not.toContain(payload.session_secret);
  });

  it('takes the widget configuration and its default transaction', async () => {
    const intent = await newWalletIntent(db, partner, '5');
    const config = {
      public_api_key: partner.publicApiKey,
      config_version: '1.2',
      intent_id: intent.id,
      default_transaction: { funding_settlement: { currency: 'EUR', quantity: 50 } },
    };
    const { payload } = parsed(
      zCreateSessionResponse,
      await call(db, 'createSession', { body: { public_api_key: partner.publicApiKey, config } }),
    );
    expect(payload.widget_configuration).toEqual(config);
    expect(payload.default_transaction).toEqual({
      funding_settlement: { currency: 'EUR', quantity: '50' },
    });
    expect(payload.client_info.suggested_country).toBe('SG');
  });

  it('refuses an unknown public_api_key with 422 naming it, storing nothing', async () => {
    const before = await count(db, 'qe_sessions');
    const error = await refusal(
      call(db, 'createSession', { body: { public_api_key: 'pk_unknown' } }),
    );
    expect([error.status, error.errors]).toEqual([422, { public_api_key: ['not_found'] }]);
    expect(await count(db, 'qe_sessions')).toBe(before);
  });

  it('refuses a widget configuration naming another intent or partner (422)', async () => {
    const config = {
      public_api_key: partner.publicApiKey,
      config_version: '1',
      intent_id: '00000000-0000-4000-8000-000000000000',
    };
    const error = await refusal(
      call(db, 'createSession', { body: { public_api_key: partner.publicApiKey, config } }),
    );
    expect([error.status, error.errors]).toEqual([422, { 'config.intent_id': ['not_found'] }]);
    const other = await refusal(
      call(db, 'createSession', {
        body: {
          public_api_key: partner.publicApiKey,
          config: { public_api_key: 'pk_x', config_version: '1' },
        },
      }),
    );
    expect(other.errors).toEqual({ 'config.public_api_key': ['does_not_match'] });
  });
});
