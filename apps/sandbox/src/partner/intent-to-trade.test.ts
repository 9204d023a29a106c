import {
  zIntentToTradeResponse,
  zTransactionStatusResponse,
} from '@exchange-kit/contract/partner/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  btcPurchase,
  call,
  count,
  newSession,
  parsed,
  partnerWalletSettlements,
  refusal,
  storeWithSession,
  T0,
  type TestStore,
} from '../testing/partner-calls.js';

const signedTransaction = '0x02f8b10181a28459682f00850b68a0aa0083012e2494a0b86991c6218b36c1d19d4a';
const btcAddress = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

let db: TestStore;
let publicApiKey: string;
let sessionId: string;

beforeAll(async () => {
  ({
    db,
    sessionId,
    partner: { publicApiKey },
  } = await storeWithSession());
}, 60_000);
afterAll(() => db.close());

const trade = (body: Record<string, unknown>, now = T0) =>
  call(db, 'intentToTrade', { body: btcPurchase(sessionId, body), now });

const payoutToWallet = {
  method: 'BLOCKCHAIN_TRANSFER',
  input_parameters: { account_key: { type: 'WALLET_ADDRESS', value: btcAddress } },
};

/** A blockchain payout given one input parameter `name` of `type`. */
const payoutWithInput = (name: string, type: string) => ({
  payout_settlement: {
    method: 'BLOCKCHAIN_TRANSFER',
    input_parameters: { [name]: { type, value: 'x' } },
  },
});

describe('intent_to_trade state table', () => {
  it('QE-TRADE-NO-METHOD: neither method yields SETTLEMENT_METHOD_REQUIRED (202)', async () => {
    const reply = await trade({});
    expect(reply.status).toBe(202);
    const body = parsed(zIntentToTradeResponse, reply);
    expect(body.payload.status).toBe('SETTLEMENT_METHOD_REQUIRED');
    expect(body.payload.session_id).toBe(sessionId);
    expect(body.payload.client_ref).toBeNull();
    expect(body.payload.funding_settlement).toBeUndefined();
    expect(body.payload.payout_settlement).toBeUndefined();
    expect(body.message).toMatch(/\/settlement\/method/);
  });

  it('QE-TRADE-BOTH-METHODS: both methods, nothing missing, yields PENDING with both instructions', async () => {
    const reply = await trade({
      terms_of_service: {
        accepted: true,
        terms_href: 'https://partners.exchange.example/legal/terms-of-service',
      },
      funding_settlement: {
        method: 'BLOCKCHAIN_DELEGATED_BROADCAST',
        input_parameters: {
          transaction_key: { type: 'SIGNED_RAW_TRANSACTION', value: signedTransaction },
        },
      },
      payout_settlement: payoutToWallet,
    });
    expect(reply.status).toBe(202);
    const { payload } = parsed(zIntentToTradeResponse, reply);
    expect(payload.status).toBe('PENDING');
    const funding = payload.funding_settlement;
    const payout = payload.payout_settlement;
    expect(funding).toMatchObject({
      direction: 'FUNDING',
      method: 'BLOCKCHAIN_DELEGATED_BROADCAST',
      currency: 'USDC',
      // 0.015 BTC at 67500 USDC, exactly.
      quantity: '1012.5',
      status: 'PENDING',
      transaction_id: payload.transaction_id,
      received_input: {
        transaction_key: { type: 'SIGNED_RAW_TRANSACTION', value: signedTransaction },
      },
      required_input_parameters: {
        transaction_key: { type: 'SIGNED_RAW_TRANSACTION', required: true },
      },
    });
    expect(funding?.setup_parameters.account_key).toMatchObject({ type: 'WALLET_ADDRESS' });
    expect(payout).toMatchObject({
      direction: 'PAYOUT',
      method: 'BLOCKCHAIN_TRANSFER',
      currency: 'BTC',
      quantity: '0.015',
      status: 'PENDING',
      setup_parameters: {},
      received_input: { account_key: { type: 'WALLET_ADDRESS', value: btcAddress } },
    });
    // As in the description's fully specified example, PENDING instructions carry no expiry.
    expect(funding?.expires).toBeUndefined();
    expect(payout?.expires).toBeUndefined();
  });

  it('QE-TRADE-PARAMETER-MISSING: delegated broadcast funding without its signed transaction', async () => {
    const reply = await trade({
      funding_settlement: { method: 'BLOCKCHAIN_DELEGATED_BROADCAST' },
      payout_settlement: payoutToWallet,
    });
    expect(reply.status).toBe(202);
    const body = parsed(zIntentToTradeResponse, reply);
    expect(body.payload.status).toBe('SETTLEMENT_PARAMETERS_REQUIRED');
    expect(body.message).toMatch(/transaction_key/);
    const expires = {
      unix_ms: T0 + 20_000,
      iso8601: new Date(T0 + 20_000).toISOString(),
      ttl_ms: 20_000,
    };
    expect(body.payload.funding_settlement).toMatchObject({
      status: 'PARAMETERS_REQUIRED',
      expires,
      required_input_parameters: {
        transaction_key: { type: 'SIGNED_RAW_TRANSACTION', required: true },
      },
      received_input: {},
    });
    expect(body.payload.payout_settlement).toMatchObject({ status: 'NOT_STARTED', expires });
  });

  it('QE-TRADE-PARAMETER-MISSING: blockchain payout without the account key', async () => {
    const reply = await trade({
      funding_settlement: { method: 'BLOCKCHAIN_TRANSFER' },
      payout_settlement: { method: 'BLOCKCHAIN_TRANSFER' },
    });
    const { payload } = parsed(zIntentToTradeResponse, reply);
    expect(payload.status).toBe('SETTLEMENT_PARAMETERS_REQUIRED');
    expect(payload.payout_settlement).toMatchObject({
      status: 'PARAMETERS_REQUIRED',
      required_input_parameters: { account_key: { type: 'WALLET_ADDRESS', required: true } },
    });
    expect(payload.funding_settlement?.status).toBe('WAITING_USER');
  });

  it('STATUS-202-TRANSACTION-CREATED: the status call returns the same transaction', async () => {
    const created = parsed(zIntentToTradeResponse, await trade({})).payload;
    const reply = await call(db, 'getTransactionStatus', {
      path: { transaction_id: created.transaction_id },
    });
    expect(reply.status).toBe(200);
    expect(parsed(zTransactionStatusResponse, reply).payload).toEqual(created);
  });
});

describe('intent_to_trade quantities', () => {
  /** The transaction of a trade settled in the partner's wallets, so both sides are priced. */
  const pricedTrade = async (body: Record<string, unknown>) =>
    parsed(zIntentToTradeResponse, await trade({ ...body, ...partnerWalletSettlements })).payload;

  it('prices the other side exactly and rounds what the user pays up', async () => {
    const payload = await pricedTrade({
      symbol: 'ETH/USDC',
      currency: 'ETH',
      quantity: '0.0000033',
    });
    // 0.0000033 * 3025 = 0.0099825 USDC, paid in cents: rounded up to 0.01.
    expect(payload.funding_settlement?.quantity).toBe('0.01');
    expect(payload.payout_settlement?.quantity).toBe('0.0000033');
  });

  it('rounds what the user receives down when the pair is priced the other way round', async () => {
    const payload = await pricedTrade({
      symbol: 'USDC/ETH',
      currency: 'USDC',
      side: 'sell',
      quantity: '100',
    });
    // 100 / 3025 = 0.0330578512... ETH, cut at 8 places.
    expect(payload.payout_settlement).toMatchObject({ currency: 'ETH', quantity: '0.03305785' });
    expect(payload.funding_settlement).toMatchObject({ currency: 'USDC', quantity: '100' });
  });

  it('takes quantity_2 given with a quote when it is the quote, as written', async () => {
    // 0.015 BTC at 67500 USDC.
    const payload = await pricedTrade({ quantity_2: '1012.50', quote_id: 'q-1' });
    expect(payload.funding_settlement?.quantity).toBe('1012.50');
  });

  it('never takes a price the user names: a quantity_2 off the quote is refused, naming the quote', async () => {
    const before = await count(db, 'transaction');
    for (const quantity_2 of ['1', '1012.49', '1012.51', '100000000']) {
      const error = await refusal(
        trade({ quantity_2, quote_id: 'made-up', ...partnerWalletSettlements }),
      );
      expect(error.status, quantity_2).toBe(422);
      expect(error.errors).toEqual({ quantity_2: ['does_not_match_quote'] });
      expect(error.message).toBe('quantity_2 must be 1012.5 USDC, the quote for 0.015 BTC');
    }
    expect(await count(db, 'transaction')).toBe(before);
  });
});

describe('intent_to_trade client_ref', () => {
  it('a repeat of the same request with its client_ref returns the existing transaction', async () => {
    const before = await count(db, 'transaction');
    const first = parsed(zIntentToTradeResponse, await trade({ client_ref: 'order-1' })).payload;
    const again = parsed(
      zIntentToTradeResponse,
      await trade({ client_ref: 'order-1', quantity: '0.0150' }),
    ).payload;
    expect(again).toEqual(first);
    expect(first.client_ref).toBe('order-1');
    expect(await count(db, 'transaction')).toBe(before + 1);
  });

  it('refuses the client_ref for another order of the same session, naming what differs', async () => {
    await trade({ client_ref: 'order-3' });
    const before = await count(db, 'transaction');
    const cases: [Record<string, unknown>, string][] = [
      [{ quantity: '2' }, 'quantity'],
      [{ side: 'sell' }, 'side'],
      [{ symbol: 'ETH/USDC', currency: 'ETH' }, 'symbol, currency'],
      [{ currency: 'USDC', quantity: '1000' }, 'quantity'],
    ];
    for (const [change, differs] of cases) {
      const error = await refusal(trade({ client_ref: 'order-3', ...change }));
      expect([error.status, error.errors], differs).toEqual([422, { client_ref: ['taken'] }]);
      expect(error.message).toBe(
        `client_ref already names a transaction of this session with another ${differs}`,
      );
    }
    expect(await count(db, 'transaction')).toBe(before);
  });

  it('concurrent creations with one client_ref make one transaction', async () => {
    const before = await count(db, 'transaction');
    const replies = await Promise.all(
      Array.from({ length: 4 }, () => trade({ client_ref: 'order-concurrent' })),
    );
    const ids = replies.map(
      (reply) => parsed(zIntentToTradeResponse, reply).payload.transaction_id,
    );
    expect(new Set(ids).size).toBe(1);
    expect(await count(db, 'transaction')).toBe(before + 1);
  });

  it('refuses a client_ref repeated from another session, whoever calls, showing nothing of it', async () => {
    const first = parsed(
      zIntentToTradeResponse,
      await trade({ client_ref: 'checkout-42' }),
    ).payload;
    const other = await newSession(db, publicApiKey);
    const body = btcPurchase(other, { client_ref: 'checkout-42' });
    for (const caller of [undefined, { kind: 'session' as const, sessionId: other }]) {
      const error = await refusal(call(db, 'intentToTrade', { body, caller }));
      expect([error.status, error.errors]).toEqual([422, { client_ref: ['taken'] }]);
      expect(JSON.stringify(error)).not.toContain(first.transaction_id);
      expect(JSON.stringify(error)).not.toContain(first.session_id);
    }
  });

  it('echoes api_key when it was sent, and refuses another partner key', async () => {
    const { payload } = parsed(zIntentToTradeResponse, await trade({ api_key: publicApiKey }));
    expect(payload.api_key).toBe(publicApiKey);
    const error = await refusal(trade({ api_key: 'pk_someone_else' }));
    expect(error.errors).toEqual({ api_key: ['does_not_match_session'] });
  });
});

describe('intent_to_trade refusals change nothing', () => {
  const cases: [string, Record<string, unknown>, number, Record<string, string[]>][] = [
    [
      'unknown session',
      { session_id: '00000000-0000-4000-8000-000000000000' },
      404,
      { session_id: ['not_found'] },
    ],
    ['zero quantity', { quantity: '0.000' }, 422, { quantity: ['must_be_positive'] }],
    ['negative quantity', { quantity: '-1' }, 422, { quantity: ['must_be_positive'] }],
    ['negative quantity_2', { quantity_2: '-1' }, 422, { quantity_2: ['must_be_positive'] }],
    ['unknown symbol', { symbol: 'DOGE/USDC' }, 422, { symbol: ['unsupported_currency'] }],
    [
      'unpriced symbol',
      { symbol: 'EUR/USD', currency: 'EUR' },
      422,
      { symbol: ['unsupported_symbol'] },
    ],
    ['currency outside the symbol', { currency: 'ETH' }, 422, { currency: ['not_in_symbol'] }],
    [
      'terms refused',
      { terms_of_service: { accepted: false, terms_href: 'https://x.example/t' } },
      422,
      { 'terms_of_service.accepted': ['must_be_accepted'] },
    ],
    [
      'delegated broadcast payout',
      {
        funding_settlement: { method: 'BLOCKCHAIN_TRANSFER' },
        payout_settlement: { method: 'BLOCKCHAIN_DELEGATED_BROADCAST' },
      },
      422,
      { 'payout_settlement.method': ['not_allowed_for_payout'] },
    ],
    [
      'fiat on chain',
      { symbol: 'BTC/EUR', funding_settlement: { method: 'BLOCKCHAIN_TRANSFER' } },
      422,
      { 'funding_settlement.method': ['not_allowed_for_currency'] },
    ],
    [
      'unknown input parameter',
      payoutWithInput('memo', 'WALLET_ADDRESS'),
      422,
      { 'payout_settlement.input_parameters.memo': ['unknown_parameter'] },
    ],
    [
      'wrong parameter type',
      payoutWithInput('account_key', 'SIGNED_RAW_TRANSACTION'),
      422,
      { 'payout_settlement.input_parameters.account_key': ['wrong_type'] },
    ],
    [
      'unknown intent',
      { intent_id: '00000000-0000-4000-8000-000000000000' },
      404,
      { intent_id: ['not_found'] },
    ],
    ['an absurd quantity', { quantity: '1'.repeat(21) }, 422, { quantity: ['too_large'] }],
    [
      'a quantity finer than a satoshi',
      { quantity: '0.123456789' },
      422,
      { quantity: ['too_precise'] },
    ],
    [
      'a quantity_2 finer than a cent',
      { quantity_2: '1012.505' },
      422,
      { quantity_2: ['too_precise'] },
    ],
    [
      'a NUL character, which the store cannot hold',
      { quote_id: 'q\u0000' },
      422,
      { quote_id: ['must_not_contain_nul'] },
    ],
  ];
  for (const [name, body, status, errors] of cases) {
    it(`${name}: ${status} naming the field`, async () => {
      const before = await count(db, 'transaction');
      const error = await refusal(trade({ client_ref: `refused-${name}`, ...body }));
      expect(error.status).toBe(status);
      expect(error.errors).toEqual(errors);
      expect(await count(db, 'transaction')).toBe(before);
    });
  }

  it('refuses a session token of another session with 401', async () => {
    const error = await refusal(
      call(db, 'intentToTrade', {
        body: btcPurchase(sessionId, { quantity: '1' }),
        caller: { kind: 'session', sessionId: '00000000-0000-4000-8000-000000000001' },
      }),
    );
    expect(error.status).toBe(401);
  });
});
