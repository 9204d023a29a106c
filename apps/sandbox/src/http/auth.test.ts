/** Partner and session authentication over HTTP; the exchange cases are in server.test.ts. */

import { zCreateSessionResponse } from '@exchange-kit/contract/partner/schemas';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { type ParsedResponse, send, startTestSandbox, valid } from '../test-support.js';

let sandbox: RunningSandbox;
let session: { session_id: string; session_secret: string };

beforeAll(async () => {
  sandbox = await startTestSandbox();
  const answer = await send(
    sandbox.partnerUrl,
    'POST',
    '/api/v1/session',
    { 'content-type': 'application/json' },
    JSON.stringify({ public_api_key: sandbox.credentials.publicApiKey }),
  );
  session = valid(zCreateSessionResponse, answer).payload;
});
afterAll(() => sandbox.close());

const intentBody = JSON.stringify({
  payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '10' },
});

async function intentCount(): Promise<number> {
  const { rows } = await sandbox.database.transaction((tx) =>
    tx.query<{ n: number }>('SELECT count(*)::int AS n FROM qe_intents'),
  );
  return rows[0]?.n ?? -1;
}

describe('partner calls (path /realtime, delegate_path the real path)', () => {
  const intentPath = () => `/api/v1/partner/${sandbox.credentials.publicApiKey}/intent`;
  const token = () => ({
    tokenId: sandbox.credentials.tokenId,
    tokenSecret: sandbox.credentials.tokenSecret,
  });

  async function createIntent(jwt: string | undefined): Promise<ParsedResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (jwt) headers['X-Service-Auth'] = jwt;
    return send(sandbox.partnerUrl, 'POST', intentPath(), headers, intentBody);
  }

  it('accepts a delegated JWT', async () => {
    const jwt = await signServiceAuth(token(), { path: intentPath(), delegate: true });
    expect((await createIntent(jwt)).status).toBe(200);
  });

  it('refuses, changing nothing: no header, a wrong delegate_path, a plain payload', async () => {
    const before = await intentCount();
    const wrongDelegate = await signServiceAuth(token(), {
      path: `${intentPath()}x`,
      delegate: true,
    });
    const plain = await signServiceAuth(token(), { path: intentPath() });
    const refusals = [
      [await createIntent(undefined), 'API Authentication failed'],
      [await createIntent(wrongDelegate), 'Path does not match'],
      [await createIntent(plain), 'Path does not match'],
    ] as const;
    for (const [answer, text] of refusals) {
      expect(answer.status).toBe(401);
      expect(answer.body).toBe(text);
    }
    expect(await intentCount()).toBe(before);
  });
});

describe('session Bearer JWTs', () => {
  const statusPath = '/api/v1/transaction/status/00000000-0000-4000-8000-000000000000';

  const bearer = (payload: object, secret = session.session_secret, alg = 'HS256') =>
    new SignJWT({ ...payload }).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));

  const withBearer = (jwt: string) =>
    send(sandbox.partnerUrl, 'GET', statusPath, { Authorization: `Bearer ${jwt}` });

  it('passes a valid Bearer JWT on to the operation (404: no such transaction)', async () => {
    const jwt = await bearer({ path: statusPath, session_id: session.session_id, nonce: 1 });
    expect((await withBearer(jwt)).status).toBe(404);
  });

  it('refuses a wrong secret, another algorithm, an unknown session, a path mismatch, a replay', async () => {
    const base = { path: statusPath, session_id: session.session_id };
    const refusals = [
      [await bearer({ ...base, nonce: 10 }, 'wrong secret'), 'API Authentication failed'],
      [
        await bearer({ ...base, nonce: 11 }, session.session_secret, 'HS384'),
        'API Authentication failed',
      ],
      [
        await bearer({ ...base, session_id: '00000000-0000-4000-8000-000000000001', nonce: 12 }),
        'API Authentication failed',
      ],
      [await bearer({ ...base, path: '/api/v1/other', nonce: 13 }), 'Path does not match'],
    ] as const;
    for (const [jwt, text] of refusals) {
      const answer = await withBearer(jwt);
      expect(answer.status).toBe(401);
      expect(answer.body).toBe(text);
    }
    // Sent but not a Bearer JWT: refused, never read as a call without credentials.
    for (const authorization of ['', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'jwt']) {
      const answer = await send(sandbox.partnerUrl, 'GET', statusPath, {
        Authorization: authorization,
      });
      expect([answer.status, answer.body], authorization).toEqual([
        401,
        'Authorization must be "Bearer <session JWT>"',
      ]);
    }
    expect((await send(sandbox.partnerUrl, 'GET', statusPath, {})).status).toBe(404);
    const once = await bearer({ ...base, nonce: 20 });
    expect((await withBearer(once)).status).toBe(404);
    const replay = await withBearer(once);
    expect(replay).toMatchObject({ status: 401, body: 'Nonce is too small' });
  });
});
