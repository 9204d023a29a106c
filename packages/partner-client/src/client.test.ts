import spec from '@exchange-kit/spec/partner.openapi.json' with { type: 'json' };
import { decodeJwt, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createPartnerClient, isPartnerCall } from './client.js';

const publicApiKey = 'pk_sandbox_demo';
const tokenSecret = 'demo-token-secret';

function observedFetch(status: number, body: unknown) {
  const requests: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    requests.push(new Request(input, init));
    return new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { fetch, requests };
}

describe('createPartnerClient', () => {
  it('signs exactly the operations the spec secures with X-Service-Auth', () => {
    const secured = Object.entries(spec.paths).flatMap(([path, item]) =>
      Object.values(item as Record<string, { security?: Array<Record<string, unknown>> }>)
        .filter((operation) => typeof operation === 'object' && operation.security)
        .map((operation) => ({
          path,
          serviceAuth: (operation.security ?? []).some((s) => 'ServiceAuth' in s),
        })),
    );
    expect(secured.length).toBeGreaterThan(0);
    for (const { path, serviceAuth } of secured)
      expect(isPartnerCall(path), path).toBe(serviceAuth);
  });

  it('signs intent creation with path /realtime and the real path as delegate_path', async () => {
    const { fetch, requests } = observedFetch(200, { success: true });
    const client = createPartnerClient({
      partnersUrl: 'http://127.0.0.1:4000',
      publicApiKey,
      tokenId: 'demo-token',
      tokenSecret,
      fetch,
    });
    await client.raw.POST('/api/v1/partner/{public_api_key}/intent', {
      params: { path: { public_api_key: publicApiKey } },
      body: {
        public_api_key: publicApiKey,
        payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'BTC', quantity: '0.01' },
        partner_order_id: 'order-1',
        partner_tags: [],
      },
    });
    const jwt = requests[0]?.headers.get('X-Service-Auth') ?? '';
    const { payload } = await jwtVerify(jwt, new TextEncoder().encode(tokenSecret), {
      algorithms: ['HS256'],
    });
    expect(payload).toEqual({
      token_id: 'demo-token',
      path: '/realtime',
      delegate_path: `/api/v1/partner/${publicApiKey}/intent`,
      nonce: expect.any(Number),
    });
  });

  it('sends session calls without a token, and holds no secret when none is given', async () => {
    const { fetch, requests } = observedFetch(200, { success: true });
    const client = createPartnerClient({
      partnersUrl: 'http://127.0.0.1:4000',
      publicApiKey,
      fetch,
    });
    await client.raw.POST('/api/v1/session', { body: { public_api_key: publicApiKey } });
    expect(requests[0]?.url).toBe('http://127.0.0.1:4000/api/v1/session');
    expect(requests[0]?.headers.get('X-Service-Auth')).toBeNull();
    expect(JSON.stringify(client)).not.toContain(tokenSecret);
    expect(() => decodeJwt(requests[0]?.headers.get('X-Service-Auth') ?? '')).toThrow();
  });
});
