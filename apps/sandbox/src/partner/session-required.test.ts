/** `--require-session-auth`: the session operations refuse a call without the session JWT. */
import { signSessionAuth } from '@exchange-kit/core/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../server.js';
import { sessionSignedOperations } from './session-required.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, memory: true, requireSessionAuth: true });
}, 60_000);
afterAll(() => sandbox.close());

async function send(path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(sandbox.partnerUrl + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.text() };
}

describe('--require-session-auth', () => {
  it('covers the operations the spec lets a session sign', () => {
    expect([...sessionSignedOperations].sort()).toEqual([
      'getTransactionStatus',
      'intentToTrade',
      'setSettlementMethod',
      'setSettlementParameters',
    ]);
  });

  it('opens sessions freely, refuses an unsigned trade and status, and takes signed ones', async () => {
    const opened = await send('/api/v1/session', {
      public_api_key: sandbox.credentials.publicApiKey,
    });
    expect(opened.status).toBe(200);
    const session = JSON.parse(opened.body).payload;
    const credentials = { sessionId: session.session_id, sessionSecret: session.session_secret };
    const tradePath = '/api/v1/transaction/intent_to_trade';
    const order = {
      session_id: session.session_id,
      side: 'buy',
      symbol: 'BTC/USDC',
      currency: 'BTC',
      quantity: '0.01',
    };

    const unsigned = await send(tradePath, order);
    expect(unsigned.status).toBe(401);
    expect(unsigned.body).toContain('API Authentication failed');

    const bearer = async (path: string) => ({
      Authorization: `Bearer ${await signSessionAuth(credentials, path)}`,
    });
    const signed = await send(tradePath, order, await bearer(tradePath));
    expect(signed.status).toBe(202);
    const transactionId = JSON.parse(signed.body).payload.transaction_id;

    const statusPath = `/api/v1/transaction/status/${transactionId}`;
    expect((await send(statusPath)).status).toBe(401);
    expect((await send(statusPath, undefined, await bearer(statusPath))).status).toBe(200);
  });
});
