import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { signServiceAuth, signSessionAuth } from './service-auth.js';

const token = { tokenId: 'token-1', tokenSecret: 'token-secret-1' };
const key = (secret: string) => new TextEncoder().encode(secret);

describe('X-Service-Auth', () => {
  it('signs the plain payload with the exact path and query string', async () => {
    const jwt = await signServiceAuth(token, { path: '/orders?product_id=1&status=live' });
    const { payload } = await jwtVerify(jwt, key(token.tokenSecret), { algorithms: ['HS256'] });
    expect(payload).toEqual({
      token_id: 'token-1',
      path: '/orders?product_id=1&status=live',
      nonce: expect.any(Number),
    });
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'HS256', typ: 'JWT' });
  });

  it('adds both OAuth request ids for calls made for a user', async () => {
    const oauth = {
      publicId: '0f8fad5b-d9cb-469f-a165-70867728950e',
      privateId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    };
    const payload = decodeJwt(await signServiceAuth(token, { path: '/user/context', oauth }));
    expect(payload).toMatchObject({
      token_id: 'token-1',
      path: '/user/context',
      oauth_request_public_id: oauth.publicId,
      oauth_request_private_id: oauth.privateId,
    });
  });

  it('signs partner calls with path /realtime and the real path as delegate_path', async () => {
    const path = '/api/v1/partner/pk_live_1/intent';
    const payload = decodeJwt(await signServiceAuth(token, { path, delegate: true }));
    expect(payload).toEqual({
      token_id: 'token-1',
      path: '/realtime',
      delegate_path: path,
      nonce: expect.any(Number),
    });
  });

  it('creates a fresh JWT with a larger nonce for every call, also in the same millisecond', async () => {
    const jwts = await Promise.all(
      Array.from({ length: 50 }, () => signServiceAuth(token, { path: '/accounts' })),
    );
    const nonces = jwts.map((jwt) => decodeJwt(jwt).nonce as number);
    expect(new Set(jwts).size).toBe(50);
    expect(nonces).toEqual([...nonces].sort((a, b) => a - b));
    expect(new Set(nonces).size).toBe(50);
  });
});

describe('X-Service-Auth without nonce', () => {
  it('carries the current iat and a jti of its own, so orders placed at once never collide', async () => {
    const before = Math.floor(Date.now() / 1000);
    const jwts = await Promise.all(
      Array.from({ length: 50 }, () =>
        signServiceAuth(token, { path: '/orders', withoutNonce: true }),
      ),
    );
    const payloads = jwts.map((jwt) => decodeJwt(jwt));
    for (const payload of payloads) {
      expect(payload).toEqual({
        token_id: 'token-1',
        path: '/orders',
        iat: expect.any(Number),
        jti: expect.any(String),
      });
      expect(payload.iat).toBeGreaterThanOrEqual(before);
      expect(payload.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    }
    expect(new Set(payloads.map((payload) => payload.jti)).size).toBe(50);
    expect(new Set(jwts).size).toBe(50);
  });
});

describe('session Bearer JWT', () => {
  it('signs {path, session_id, nonce} with the session secret', async () => {
    const session = {
      sessionId: 'a3bb189e-8bf9-4888-9912-ace4e6543002',
      sessionSecret: 'session-secret',
    };
    const jwt = await signSessionAuth(session, '/api/v1/transaction/status/x');
    const { payload } = await jwtVerify(jwt, key(session.sessionSecret), { algorithms: ['HS256'] });
    expect(payload).toEqual({
      path: '/api/v1/transaction/status/x',
      session_id: session.sessionId,
      nonce: expect.any(Number),
    });
  });
});
