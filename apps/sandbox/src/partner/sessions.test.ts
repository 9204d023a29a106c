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
  newSession,
  newWalletIntent,
  parsed,
  refusal,
  type SeededPartner,
  seedPartner,
  T0,
  type TestStore,
} from '../testing/partner-calls.js';
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
    const before = await count(db, 'session');
    const error = await refusal(
      call(db, 'createSession', { body: { public_api_key: 'pk_unknown' } }),
    );
    expect([error.status, error.errors]).toEqual([422, { public_api_key: ['not_found'] }]);
    expect(await count(db, 'session')).toBe(before);
  });

  it('refuses a widget configuration naming an intent no transaction can fulfil (422), storing nothing', async () => {
    const widget = (intent_id: string) => ({
      public_api_key: partner.publicApiKey,
      config: { public_api_key: partner.publicApiKey, config_version: '1', intent_id },
    });
    const attempted = await newWalletIntent(db, partner, '5');
    const sessionId = await newSession(db, partner.publicApiKey);
    const fulfilled = await call(db, 'intentToTrade', {
      body: {
        session_id: sessionId,
        intent_id: attempted.id,
        side: 'buy',
        symbol: 'USDC/ETH',
        currency: 'USDC',
        quantity: '5',
      },
    });
    expect(fulfilled.status).toBe(202);
    const expiring = await newWalletIntent(db, partner, '5', {
      strategy: 'ONE_TO_MANY',
      expires_at: T0 + 60_000,
    });
    const before = await count(db, 'session');
    const consumed = await refusal(call(db, 'createSession', { body: widget(attempted.id) }));
    expect([consumed.status, consumed.errors]).toEqual([
      422,
      { 'config.intent_id': ['already_attempted'] },
    ]);
    const expired = await refusal(
      call(db, 'createSession', { body: widget(expiring.id), now: T0 + 60_000 }),
    );
    expect([expired.status, expired.errors]).toEqual([422, { 'config.intent_id': ['expired'] }]);
    expect(await count(db, 'session')).toBe(before);
    // Before its expiry, a reusable intent opens the widget as often as asked.
    const open = await call(db, 'createSession', { body: widget(expiring.id), now: T0 + 59_999 });
    expect(open.status).toBe(200);
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
