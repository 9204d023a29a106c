/**
 * Every error path a stranger can provoke, over real HTTP, with the whole log kept: none of
 * the secrets used, and none of the values of a failed statement, may appear in it.
 */
import { request as httpRequest } from 'node:http';
import { signServiceAuth, signSessionAuth } from '@exchange-kit/core/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from './server.js';
import {
  clientFor,
  demoClient,
  type ParsedResponse,
  send,
  startTestSandbox,
} from './test-support.js';

const lines: string[] = [];
let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({
    logDestination: { write: (line: string) => void lines.push(line) },
  });
  // The store refuses what carries a marker, as a constraint would: the failed statements
  // hold the marker, and a session insert holds the session secret beside it.
  await sandbox.database.transaction(async (tx) => {
    await tx.query(`CREATE FUNCTION refuse_marked() RETURNS trigger AS $$
      BEGIN
        IF NEW::text LIKE '%statement-marker%' THEN
          RAISE EXCEPTION 'refused by the store' USING DETAIL = NEW::text;
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    for (const table of ['qe_sessions', 'orders']) {
      await tx.query(`CREATE TRIGGER refuse_marked BEFORE INSERT OR UPDATE ON ${table}
        FOR EACH ROW EXECUTE FUNCTION refuse_marked()`);
    }
  });
});
afterAll(() => sandbox.close());

const marker = `statement-marker-${Math.random().toString(36).slice(2)}`;

function partner(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ParsedResponse> {
  return send(
    sandbox.partnerUrl,
    method,
    path,
    { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body === undefined ? undefined : JSON.stringify(body),
  );
}

/** Sends headers and half a body, then hangs up. */
function abortedUpload(path: string): Promise<void> {
  return new Promise((resolve) => {
    const url = new URL(path, sandbox.exchangeUrl);
    const upload = httpRequest(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '4096' },
    });
    upload.on('error', () => resolve());
    upload.write('{"order_type": "limit", "quantity": "0.0', () => {
      setTimeout(() => {
        upload.destroy();
        resolve();
      }, 50);
    });
  });
}

async function logSettles(): Promise<void> {
  for (let wait = 0; wait < 20; wait++) {
    const before = lines.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (lines.length === before) return;
  }
}

describe('the log of every error path', () => {
  it('holds no secret and no statement value, and one line per aborted upload', async () => {
    const secrets: string[] = [sandbox.credentials.tokenSecret, marker];
    const key = sandbox.credentials.publicApiKey;

    // Bad secrets: a token secret and a session secret that are not the right ones.
    const wrongToken = 'wrong-token-secret-0123456789abcdef';
    secrets.push(wrongToken);
    const impostor = clientFor(sandbox, {
      tokenId: sandbox.credentials.tokenId,
      tokenSecret: wrongToken,
    });
    expect((await impostor('GET', '/accounts')).status).toBe(401);
    expect((await impostor('POST', '/orders', { body: { order_type: 'limit' } })).status).toBe(401);

    // A refused login: approving an OAuth request with a token secret that is not the user's.
    const oauth = await demoClient(sandbox)('POST', '/system/oauth_requests', { body: {} });
    const privateId = (oauth.body as { oauth_request_private_id: string }).oauth_request_private_id;
    secrets.push(privateId);
    expect((await impostor('POST', `/oauth/${privateId}/approve`)).status).toBe(401);

    const created = await partner('POST', '/api/v1/session', { public_api_key: key });
    expect(created.status).toBe(200);
    const session = (created.body as { payload: { session_id: string; session_secret: string } })
      .payload;
    secrets.push(session.session_secret);
    const wrongSession = 'wrong-session-secret-fedcba9876543210';
    secrets.push(wrongSession);
    const statusPath = '/api/v1/transaction/status/00000000-0000-4000-8000-000000000000';
    const refusedLogin = await partner('GET', statusPath, undefined, {
      Authorization: `Bearer ${await signSessionAuth({ sessionId: session.session_id, sessionSecret: wrongSession }, statusPath)}`,
    });
    expect(refusedLogin.status).toBe(401);
    const wrongPartner = await signServiceAuth(
      { tokenId: sandbox.credentials.tokenId, tokenSecret: wrongToken },
      { path: `/api/v1/partner/${key}/intent`, delegate: true },
    );
    const refusedPartner = await partner(
      'POST',
      `/api/v1/partner/${key}/intent`,
      { payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '1' } },
      { 'X-Service-Auth': wrongPartner },
    );
    expect(refusedPartner.status).toBe(401);

    // Failed inserts: a session (its secret among the statement's values) and an order.
    const failedSession = await partner('POST', '/api/v1/session', {
      public_api_key: key,
      ancestor_origins: marker,
    });
    expect(failedSession.status).toBe(500);
    const failedOrder = await demoClient(sandbox)('POST', '/orders', {
      body: {
        order_type: 'limit',
        product_id: 1,
        side: 'buy',
        quantity: '0.001',
        price: '100',
        client_order_id: marker.slice(0, 36),
      },
    });
    expect(failedOrder.status).toBe(500);

    // Aborted uploads.
    const aborted = 3;
    for (let index = 0; index < aborted; index++) await abortedUpload('/orders');
    await logSettles();

    const log = lines.join('');
    for (const secret of secrets) expect(log, secret).not.toContain(secret);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const internal = entries.filter((entry) => entry.msg === 'internal error');
    expect(internal).toHaveLength(2);
    expect(log).toContain('[redacted]');
    const abortions = entries.filter((entry) => entry.msg === 'request aborted by the client');
    expect(abortions).toHaveLength(aborted);
    for (const entry of abortions) expect(entry).not.toHaveProperty('err');
    expect(
      lines.every((line) => line.endsWith('\n') && line.indexOf('\n') === line.length - 1),
    ).toBe(true);
  });
});
