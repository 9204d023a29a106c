import spec from '@exchange-kit/contract/partner/openapi.json' with { type: 'json' };
import {
  type JsonReply,
  jsonReply,
  scriptedFetch,
} from '@exchange-kit/test-support/scripted-fetch';
import { decodeJwt, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createPartnerClient as createBrowserClient } from './browser.js';
import { createPartnerClient } from './index.js';

const publicApiKey = 'pk_sandbox_demo';
const tokenSecret = 'demo-token-secret';
const partnersUrl = 'http://127.0.0.1:4000';
const pending =
  spec.paths['/api/v1/transaction/intent_to_trade'].post.responses['202'].content[
    'application/json'
  ].example;

/** A fetch that records each request and answers from a list, the way a server would. */
function server(...replies: JsonReply[]) {
  const { fetch, sent: requests } = scriptedFetch(replies.map(jsonReply));
  return { fetch, requests };
}

/** The client as a partner's backend makes it, with the API token, on a scripted server. */
const serverClient = (fetch: typeof globalThis.fetch, options: { retry?: false } = {}) =>
  createPartnerClient({
    partnersUrl,
    publicApiKey,
    tokenId: 'demo-token',
    tokenSecret,
    fetch,
    ...options,
  });

describe('createPartnerClient', () => {
  it('signs with the delegated payload exactly the operations the spec secures with X-Service-Auth, raw calls too', async () => {
    const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
      Object.entries(
        item as Record<string, { operationId?: string; security?: Array<Record<string, unknown>> }>,
      )
        .filter(([, operation]) => typeof operation === 'object' && operation.operationId)
        .map(([method, operation]) => ({
          path,
          method: method.toUpperCase() as 'GET' | 'POST',
          serviceAuth: (operation.security ?? []).some((s) => 'ServiceAuth' in s),
        })),
    );
    expect(operations).toHaveLength(7);
    expect(operations.filter((operation) => operation.serviceAuth)).not.toHaveLength(0);
    for (const { path, method, serviceAuth } of operations) {
      // Refused, so no answer needs to meet a schema: only the signing is looked at.
      const { fetch, requests } = server({ status: 401, body: { message: 'no' } });
      const client = serverClient(fetch, { retry: false });
      const params = { path: { public_api_key: publicApiKey, transaction_id: 't' } };
      const raw = client.raw as unknown as Record<string, (path: string, init: object) => unknown>;
      await raw[method]?.(path, { params, ...(method === 'POST' ? { body: {} } : {}) });
      const jwt = requests[0]?.request.headers.get('X-Service-Auth') ?? '';
      const payload = decodeJwt(jwt);
      expect(payload.delegate_path !== undefined, `${method} ${path}`).toBe(serviceAuth);
      if (serviceAuth) expect(payload.path, `${method} ${path}`).toBe('/realtime');
    }
  });

  it('signs intent creation with path /realtime and the real path as delegate_path', async () => {
    const intent =
      spec.paths['/api/v1/partner/{public_api_key}/intent'].post.responses['200'].content[
        'application/json'
      ].example;
    const { fetch, requests } = server({ body: intent });
    const client = serverClient(fetch);
    const created = await client.intents.create({
      payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'BTC', quantity: 0.015 },
      partner_order_id: 'order-1',
      partner_tags: [],
    });
    expect(created.id).toBe(intent.payload.id);
    const jwt = requests[0]?.request.headers.get('X-Service-Auth') ?? '';
    const { payload } = await jwtVerify(jwt, new TextEncoder().encode(tokenSecret), {
      algorithms: ['HS256'],
    });
    expect(payload).toEqual({
      token_id: 'demo-token',
      path: '/realtime',
      delegate_path: `/api/v1/partner/${publicApiKey}/intent`,
      nonce: expect.any(Number),
    });
    expect(JSON.parse(requests[0]?.body ?? '')).toMatchObject({
      public_api_key: publicApiKey,
      payout_settlement: { quantity: '0.015' },
    });
  });

  it('opens a session with the public key alone, sending no credential', async () => {
    const session =
      spec.paths['/api/v1/session'].post.responses['200'].content['application/json'].example;
    const { fetch, requests } = server({ body: session });
    const client = createPartnerClient({ partnersUrl, publicApiKey, fetch });
    expect((await client.sessions.create({ user_locale: 'en' })).session_id).toBe(
      session.payload.session_id,
    );
    expect(requests[0]?.request.url).toBe(`${partnersUrl}/api/v1/session`);
    expect(requests[0]?.request.headers.get('X-Service-Auth')).toBeNull();
    expect(JSON.parse(requests[0]?.body ?? '')).toEqual({
      user_locale: 'en',
      public_api_key: publicApiKey,
    });
  });

  it('says in words what an answer that breaks the spec should have held', async () => {
    const session =
      spec.paths['/api/v1/session'].post.responses['200'].content['application/json'].example;
    const broken = {
      ...session,
      payload: { ...session.payload, session_id: 'x', session_secret: 's'.repeat(5_000) },
    };
    const { fetch } = server({ body: broken });
    const client = createPartnerClient({ partnersUrl, publicApiKey, fetch });
    const error = await client.sessions.create().catch((e: unknown) => e);
    expect(String(error)).toContain('/payload/session_id: expected a uuid, received "x"');
    expect(String(error)).not.toContain('Invalid input');
  });

  it('refuses the token-only calls without a token, before sending anything', async () => {
    const { fetch, requests } = server();
    const client = createPartnerClient({ partnersUrl, publicApiKey, fetch });
    await expect(
      client.intents.create({
        payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'BTC', quantity: '1' },
        partner_order_id: 'x',
        partner_tags: [],
      }),
    ).rejects.toThrow(
      "intents.create needs the partner's API token (tokenId and tokenSecret): call it from your backend",
    );
    await expect(client.transactions.list()).rejects.toThrow(
      /transactions.list needs the partner's API token/,
    );
    expect(requests).toHaveLength(0);
  });

  it('the browser build refuses a token secret', () => {
    expect(() =>
      createBrowserClient({ partnersUrl, publicApiKey, tokenId: 't', tokenSecret }),
    ).toThrow('tokenSecret must not reach a browser: create intents on your backend');
  });

  it('creates a transaction with canonical decimals and returns its payload', async () => {
    const { fetch, requests } = server({ status: 202, body: pending });
    const client = createPartnerClient({ partnersUrl, publicApiKey, fetch });
    const transaction = await client.transactions.create({
      session_id: pending.payload.session_id,
      symbol: 'BTC/USDC',
      currency: 'BTC',
      side: 'buy',
      quantity: 0.015,
      client_ref: 'order-7730',
    });
    expect(transaction.status).toBe('PENDING');
    expect(JSON.parse(requests[0]?.body ?? '')).toMatchObject({
      quantity: '0.015',
      client_ref: 'order-7730',
    });
  });

  it('pages the partner listing from the last timestamp + 1 until a short page', async () => {
    const base = pending.payload as Record<string, unknown>;
    const tx = (n: number) => ({
      ...base,
      transaction_id: crypto.randomUUID(),
      created_at: 1_716_000_000_000 + n,
      intent_id: null,
      partner_order_id: 'order-1',
      partner_ref: 'ref-1',
      partner_tags: ['web'],
    });
    const selection = { limit: 100, count: 0 };
    const first = Array.from({ length: 100 }, (_, n) => tx(n));
    const { fetch, requests } = server(
      {
        body: {
          success: true,
          environment: 'SANDBOX',
          payload: { transactions: first, selection: { ...selection, count: 100 } },
        },
      },
      {
        body: {
          success: true,
          environment: 'SANDBOX',
          payload: { transactions: [tx(100)], selection: { ...selection, count: 1 } },
        },
      },
    );
    const client = createPartnerClient({
      partnersUrl,
      publicApiKey,
      tokenId: 't',
      tokenSecret,
      fetch,
    });
    const seen: number[] = [];
    for await (const each of client.transactions.iterate({ status: 'PENDING' }))
      seen.push(each.created_at);
    expect(seen).toHaveLength(101);
    expect(requests.map((r) => new URL(r.request.url).searchParams.get('min_ts'))).toEqual([
      null,
      '1716000000100',
    ]);
    expect(decodeJwt(requests[1]?.request.headers.get('X-Service-Auth') ?? '').delegate_path).toBe(
      `/api/v1/partner/${publicApiKey}/transactions?status=PENDING&min_ts=1716000000100`,
    );
  });
});
