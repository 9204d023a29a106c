/**
 * Every id is looked up, keyed and nonce-scoped in one spelling: another spelling of a UUID
 * names the same record and spends the same nonces, and a token id is only its exact self.
 */

import {
  zApproveOAuthRequestResponse,
  zCreateOAuthRequestResponse,
  zGetUserContextResponse,
} from '@exchange-kit/contract/exchange/schemas';
import {
  zCreateIntentResponse,
  zCreateSessionResponse,
  zIntentToTradeResponse,
  zListPartnerTransactionsResponse,
  zSetSettlementMethodResponse,
  zTransactionStatusResponse,
} from '@exchange-kit/contract/partner/schemas';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { demoClient, newUser, send, startTestSandbox, valid } from '../test-support.js';
import { btcPurchase } from '../testing/partner-calls.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

const sign = (payload: object, secret: string) =>
  new SignJWT({ ...payload })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(secret));

/** `id` with the letters at the positions `mask`'s bits pick in capitals. */
function spelling(id: string, mask: number): string {
  let letter = 0;
  return [...id]
    .map((char) => (/[a-f]/.test(char) && (mask >> letter++) % 2 === 1 ? char.toUpperCase() : char))
    .join('');
}

function partner(method: string, path: string, body?: unknown) {
  return async () => {
    const { tokenId, tokenSecret } = sandbox.credentials;
    const jwt = await signServiceAuth({ tokenId, tokenSecret }, { path, delegate: true });
    const headers: Record<string, string> = { 'X-Service-Auth': jwt };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return send(sandbox.partnerUrl, method, path, headers, JSON.stringify(body));
  };
}

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return send(
    sandbox.partnerUrl,
    'POST',
    path,
    { ...headers, 'content-type': 'application/json' },
    JSON.stringify(body),
  );
}

async function newSession() {
  const answer = await post('/api/v1/session', {
    public_api_key: sandbox.credentials.publicApiKey,
  });
  return valid(zCreateSessionResponse, answer).payload;
}

async function newTransaction(sessionId: string, extra: Record<string, unknown> = {}) {
  const answer = await post('/api/v1/transaction/intent_to_trade', btcPurchase(sessionId, extra));
  return valid(zIntentToTradeResponse, answer, 202).payload;
}

describe('one spelling per id', () => {
  it('session: the same nonce under 20 spellings of the session id is accepted once', async () => {
    const session = await newSession();
    const { transaction_id } = await newTransaction(session.session_id);
    const path = `/api/v1/transaction/status/${transaction_id}`;
    const statuses: number[] = [];
    for (let mask = 0; mask < 20; mask++) {
      const jwt = await sign(
        { path, session_id: spelling(session.session_id, mask), nonce: 1000 },
        session.session_secret,
      );
      const answer = await send(sandbox.partnerUrl, 'GET', path, {
        Authorization: `Bearer ${jwt}`,
      });
      statuses.push(answer.status);
      if (answer.status !== 200) expect(answer.body).toBe('Nonce is too small');
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);

    // A capitalised session id signs for its own session, whatever spelling the body uses.
    const tradePath = '/api/v1/transaction/intent_to_trade';
    const jwt = await sign(
      { path: tradePath, session_id: session.session_id.toUpperCase(), nonce: 1001 },
      session.session_secret,
    );
    const trade = await post(
      tradePath,
      {
        session_id: session.session_id,
        side: 'buy',
        symbol: 'BTC/USDC',
        currency: 'BTC',
        quantity: '0.015',
      },
      { Authorization: `Bearer ${jwt}` },
    );
    expect(valid(zIntentToTradeResponse, trade, 202).payload.session_id).toBe(session.session_id);
  });

  it('transaction: any spelling reaches the one transaction, never another session’s', async () => {
    const session = await newSession();
    const { transaction_id } = await newTransaction(session.session_id);
    const shouted = transaction_id.toUpperCase();
    const status = await send(
      sandbox.partnerUrl,
      'GET',
      `/api/v1/transaction/status/${shouted}`,
      {},
    );
    expect(valid(zTransactionStatusResponse, status).payload.transaction_id).toBe(transaction_id);

    const method = await post('/api/v1/settlement/method', {
      transaction_id: shouted,
      direction: 'FUNDING',
      method: 'BLOCKCHAIN_TRANSFER',
    });
    const instruction = valid(zSetSettlementMethodResponse, method, 202).payload;
    expect(instruction.transaction_id).toBe(transaction_id);

    const stranger = await newSession();
    const path = `/api/v1/transaction/status/${shouted}`;
    const jwt = await sign(
      { path, session_id: stranger.session_id, nonce: 1 },
      stranger.session_secret,
    );
    const hidden = await send(sandbox.partnerUrl, 'GET', path, { Authorization: `Bearer ${jwt}` });
    expect(hidden.status).toBe(404);
  });

  it('intent: a spelling of the intent id claims the one intent, once', async () => {
    const key = sandbox.credentials.publicApiKey;
    const created = await partner('POST', `/api/v1/partner/${key}/intent`, {
      payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '10' },
      strategy: 'ONE_TO_ONE_ATTEMPTED',
    })();
    const intent = valid(zCreateIntentResponse, created).payload;
    const trade = (intentId: string, sessionId: string) =>
      post('/api/v1/transaction/intent_to_trade', {
        session_id: sessionId,
        intent_id: intentId,
        side: 'buy',
        symbol: 'USDC/ETH',
        currency: 'USDC',
        quantity: '10',
      });
    const first = await trade(intent.id.toUpperCase(), (await newSession()).session_id);
    expect(valid(zIntentToTradeResponse, first, 202).payload).toBeDefined();
    const again = await trade(intent.id, (await newSession()).session_id);
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.status).toBeLessThan(500);

    const listed = await partner(
      'GET',
      `/api/v1/partner/${key}/transactions?intent_id=${intent.id.toUpperCase()}`,
    )();
    expect(valid(zListPartnerTransactionsResponse, listed).payload.transactions).toHaveLength(1);
  });

  it('OAuth request: any spelling of its ids is the one grant, under the one token nonce', async () => {
    const app = demoClient(sandbox);
    const request = valid(
      zCreateOAuthRequestResponse,
      await app('POST', '/system/oauth_requests', { body: {} }),
    );
    const user = await newUser(sandbox);
    const approvePath = `/oauth/${request.oauth_request_private_id.toUpperCase()}/approve`;
    valid(zApproveOAuthRequestResponse, await user.call('POST', approvePath));

    const { tokenId, tokenSecret } = sandbox.credentials;
    const context = (publicId: string, privateId: string, nonce: number) =>
      sign(
        {
          token_id: tokenId,
          path: '/user/context',
          nonce,
          oauth_request_public_id: publicId,
          oauth_request_private_id: privateId,
        },
        tokenSecret,
      ).then((jwt) => send(sandbox.exchangeUrl, 'GET', '/user/context', { 'X-Service-Auth': jwt }));
    const nonce = Date.now() * 1000;
    const publicId = request.oauth_request_public_id;
    const privateId = request.oauth_request_private_id;
    const read = await context(publicId.toUpperCase(), privateId, nonce);
    expect(valid(zGetUserContextResponse, read).user_id).toBe(user.userId);
    const replay = await context(publicId, privateId.toUpperCase(), nonce);
    expect([replay.status, replay.body]).toEqual([401, 'Nonce is too small']);
  });

  it('token: a token id is its exact spelling; another is no token and spends nothing', async () => {
    const user = await newUser(sandbox);
    const nonce = Date.now() * 1000;
    const accounts = (tokenId: string, value: number) =>
      sign({ token_id: tokenId, path: '/accounts', nonce: value }, user.tokenSecret).then((jwt) =>
        send(sandbox.exchangeUrl, 'GET', '/accounts', { 'X-Service-Auth': jwt }),
      );
    const shouted = await accounts(user.tokenId.toUpperCase(), nonce);
    expect([shouted.status, shouted.body]).toEqual([401, 'API Authentication failed']);
    expect((await accounts(user.tokenId, nonce)).status).toBe(200);
    expect((await accounts(user.tokenId, nonce)).body).toBe('Nonce is too small');
  });
});
