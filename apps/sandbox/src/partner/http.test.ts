/** The partner operations over real loopback HTTP, signed the way real clients sign them. */

import { randomUUID } from 'node:crypto';
import {
  zCreateIntentResponse,
  zCreateSessionResponse,
  zIntentToTradeResponse,
  zListPartnerTransactionsResponse,
  zSetSettlementMethodResponse,
  zSetSettlementParametersResponse,
  zTransactionStatusResponse,
} from '@exchange-kit/contract/partner/schemas';
import { signServiceAuth, signSessionAuth } from '@exchange-kit/core/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { type RunningSandbox, startSandbox } from '../server.js';
import { type ParsedResponse, send as sendTo } from '../test-support.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, memory: true });
}, 60_000);
afterAll(() => sandbox.close());

function send(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<ParsedResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return sendTo(sandbox.partnerUrl, method, path, headers, body);
}

/** A call of the demo partner: X-Service-Auth with path /realtime and delegate_path the real path. */
async function asPartner(method: string, path: string, body?: unknown): Promise<ParsedResponse> {
  const { tokenId, tokenSecret } = sandbox.credentials;
  const jwt = await signServiceAuth({ tokenId, tokenSecret }, { path, delegate: true });
  return send(method, path, { body, headers: { 'X-Service-Auth': jwt } });
}

function ok<S extends z.core.$ZodType>(
  schema: S,
  answer: ParsedResponse,
  status: number,
): z.infer<S> {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return z.parse(schema, answer.body);
}

describe('Quick Exchange over HTTP', () => {
  it('STATUS-200-SUCCESS, INTENT-ONE-TO-MANY-REUSABLE, QE-TRADE-BOTH-METHODS: session, intent, trades, listing', async () => {
    const key = sandbox.credentials.publicApiKey;
    const session = ok(
      zCreateSessionResponse,
      await send('POST', '/api/v1/session', {
        body: { public_api_key: key, user_locale: 'en-SG' },
      }),
      200,
    ).payload;

    const intentPath = `/api/v1/partner/${key}/intent`;
    const intent = ok(
      zCreateIntentResponse,
      await asPartner('POST', intentPath, {
        payout_settlement: {
          method: 'SERVICE_PARTNER_WALLET',
          currency: 'USDC',
          quantity: '49.90',
        },
        strategy: 'ONE_TO_MANY',
        partner_order_id: 'SUBSCRIPTION-MONTHLY',
        partner_tags: ['subscription'],
      }),
      200,
    ).payload;

    const tradePath = '/api/v1/transaction/intent_to_trade';
    const bearer = async (path: string) => ({
      Authorization: `Bearer ${await signSessionAuth({ sessionId: session.session_id, sessionSecret: session.session_secret }, path)}`,
    });
    const ids: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const trade = ok(
        zIntentToTradeResponse,
        await send('POST', tradePath, {
          headers: await bearer(tradePath),
          body: {
            session_id: session.session_id,
            intent_id: intent.id,
            side: 'buy',
            symbol: 'USDC/ETH',
            currency: 'USDC',
            quantity: '49.90',
            funding_settlement: {
              method: 'BLOCKCHAIN_DELEGATED_BROADCAST',
              input_parameters: {
                transaction_key: { type: 'SIGNED_RAW_TRANSACTION', value: '0x02f8b1' },
              },
            },
          },
        }),
        202,
      ).payload;
      expect(trade.status).toBe('PENDING');
      ids.push(trade.transaction_id);
    }

    const listPath = `/api/v1/partner/${key}/transactions?intent_id=${intent.id}`;
    const listing = ok(
      zListPartnerTransactionsResponse,
      await asPartner('GET', listPath),
      200,
    ).payload;
    expect(listing.transactions.map((t) => t.transaction_id)).toEqual(ids);
    expect(listing.transactions[0]).toMatchObject({
      partner_order_id: 'SUBSCRIPTION-MONTHLY',
      partner_tags: ['subscription'],
    });
    expect(listing.selection).toEqual({ intent_id: intent.id, limit: 100, count: 2 });
  });

  it('refuses malformed listing filters with 400 naming each', async () => {
    const key = sandbox.credentials.publicApiKey;
    for (const [field, value] of [
      ['min_ts', '-1'],
      ['max_ts', 'yesterday'],
      ['status', 'DONE'],
      ['intent_id', 'nope'],
    ] as const) {
      const answer = await asPartner(
        'GET',
        `/api/v1/partner/${key}/transactions?${field}=${value}`,
      );
      expect(answer.status, field).toBe(400);
      expect(Object.keys((answer.body as { errors: object }).errors), field).toEqual([field]);
    }
    // Given twice, even with the same good value, a filter is refused in the partner envelope.
    const twice = await asPartner(
      'GET',
      `/api/v1/partner/${key}/transactions?status=PENDING&status=PENDING`,
    );
    expect(twice).toMatchObject({
      status: 400,
      body: { success: false, errors: { status: ['given_more_than_once'] } },
    });
  });

  it('QE-TRADE-NO-METHOD then settlement method and parameters, to PENDING', async () => {
    const key = sandbox.credentials.publicApiKey;
    const session = ok(
      zCreateSessionResponse,
      await send('POST', '/api/v1/session', { body: { public_api_key: key } }),
      200,
    ).payload;
    const trade = ok(
      zIntentToTradeResponse,
      await send('POST', '/api/v1/transaction/intent_to_trade', {
        body: {
          session_id: session.session_id,
          side: 'buy',
          symbol: 'BTC/USDC',
          currency: 'BTC',
          quantity: '0.015',
        },
      }),
      202,
    ).payload;
    expect(trade.status).toBe('SETTLEMENT_METHOD_REQUIRED');
    const transaction_id = trade.transaction_id;
    ok(
      zSetSettlementMethodResponse,
      await send('POST', '/api/v1/settlement/method', {
        body: { transaction_id, direction: 'FUNDING', method: 'BLOCKCHAIN_TRANSFER' },
      }),
      202,
    );
    const payout = ok(
      zSetSettlementMethodResponse,
      await send('POST', '/api/v1/settlement/method', {
        body: { transaction_id, direction: 'PAYOUT', method: 'BLOCKCHAIN_TRANSFER' },
      }),
      202,
    ).payload;
    expect(payout.status).toBe('PARAMETERS_REQUIRED');
    ok(
      zSetSettlementParametersResponse,
      await send('POST', '/api/v1/settlement/parameters', {
        body: {
          settlement_instruction_id: payout.settlement_instruction_id,
          input_parameters: {
            account_key: {
              type: 'WALLET_ADDRESS',
              value: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
            },
          },
        },
      }),
      202,
    );
    const status = ok(
      zTransactionStatusResponse,
      await send('GET', `/api/v1/transaction/status/${transaction_id}`),
      200,
    ).payload;
    expect(status.status).toBe('PENDING');
  });

  it('refuses a key a partner or session body does not take with 422 naming it, storing nothing', async () => {
    const key = sandbox.credentials.publicApiKey;
    const intentPath = `/api/v1/partner/${key}/intent`;
    const listPath = `/api/v1/partner/${key}/transactions`;
    const countOf = async () =>
      ok(zListPartnerTransactionsResponse, await asPartner('GET', listPath), 200).payload.selection
        .count;
    const before = await countOf();
    const payout = { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '1' };
    const refusals: [ParsedResponse, Record<string, string[]>][] = [
      [
        await asPartner('POST', intentPath, { payout_settlement: payout, stratgy: 'ONE_TO_MANY' }),
        { stratgy: ['unknown_field'] },
      ],
      [
        await asPartner('POST', intentPath, {
          payout_settlement: { ...payout, quantity: undefined, quantty: '1' },
        }),
        { 'payout_settlement.quantty': ['unknown_field'] },
      ],
    ];
    const session = ok(
      zCreateSessionResponse,
      await send('POST', '/api/v1/session', { body: { public_api_key: key } }),
      200,
    ).payload;
    const trade = {
      session_id: session.session_id,
      side: 'buy',
      symbol: 'BTC/USDC',
      currency: 'BTC',
      quantity: '0.015',
    };
    refusals.push([
      await send('POST', '/api/v1/transaction/intent_to_trade', {
        body: { ...trade, intentId: randomUUID() },
      }),
      { intentId: ['unknown_field'] },
    ]);
    refusals.push([
      await send('POST', '/api/v1/transaction/intent_to_trade', {
        body: { ...trade, funding_settlement: { method: 'BLOCKCHAIN_TRANSFER', methd: 'x' } },
      }),
      { 'funding_settlement.methd': ['unknown_field'] },
    ]);
    const address = { type: 'WALLET_ADDRESS', value: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' };
    refusals.push([
      await send('POST', '/api/v1/transaction/intent_to_trade', {
        body: {
          ...trade,
          payout_settlement: {
            method: 'BLOCKCHAIN_TRANSFER',
            input_parameters: { account_key: { ...address, lable: 'x' } },
          },
        },
      }),
      { 'payout_settlement.input_parameters.account_key.lable': ['unknown_field'] },
    ]);
    for (const [answer, errors] of refusals) {
      expect([answer.status, (answer.body as { errors?: unknown }).errors]).toEqual([422, errors]);
      expect(answer.body).toMatchObject({ success: false });
    }
    expect(await countOf()).toBe(before);
    const placed = ok(
      zIntentToTradeResponse,
      await send('POST', '/api/v1/transaction/intent_to_trade', { body: trade }),
      202,
    ).payload;
    const method = await send('POST', '/api/v1/settlement/method', {
      body: {
        transaction_id: placed.transaction_id,
        direction: 'FUNDING',
        method: 'BLOCKCHAIN_TRANSFER',
        drection: 'PAYOUT',
      },
    });
    expect([method.status, (method.body as { errors?: unknown }).errors]).toEqual([
      422,
      { drection: ['unknown_field'] },
    ]);
    const status = ok(
      zTransactionStatusResponse,
      await send('GET', `/api/v1/transaction/status/${placed.transaction_id}`),
      200,
    ).payload;
    expect(status.status).toBe('SETTLEMENT_METHOD_REQUIRED');
  });

  it('refuses intent creation without the partner header (401) and unknown ids (404 naming the field)', async () => {
    const key = sandbox.credentials.publicApiKey;
    const anonymous = await send('POST', `/api/v1/partner/${key}/intent`, {
      body: {
        payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '1' },
      },
    });
    expect(anonymous.status).toBe(401);
    const unknownSession = await send('POST', '/api/v1/transaction/intent_to_trade', {
      body: {
        session_id: '00000000-0000-4000-8000-000000000000',
        side: 'buy',
        symbol: 'BTC/USDC',
        currency: 'BTC',
        quantity: '1',
      },
    });
    expect(unknownSession.status).toBe(404);
    expect(unknownSession.body).toMatchObject({ errors: { session_id: ['not_found'] } });
    const unknownTransaction = await send(
      'GET',
      '/api/v1/transaction/status/00000000-0000-4000-8000-000000000000',
    );
    expect(unknownTransaction.status).toBe(404);
  });
});
