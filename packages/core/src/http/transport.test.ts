import { scriptedFetch } from '@exchange-kit/test-support/scripted-fetch';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { serviceAuthenticator } from '../auth/authenticate.js';
import { TransportError } from '../errors.js';
import { createTransport, type RequestEvent, type RetryEvent } from './transport.js';

const token = { tokenId: 'token-t', tokenSecret: 'transport-secret' };

const status = (code: number, headers: Record<string, string> = {}) =>
  new Response('{}', { status: code, headers });

describe('createTransport', () => {
  it('retries a 503 with a fresh JWT, the same body, and redacted logs', async () => {
    const { fetch, sent } = scriptedFetch([status(503), status(200)]);
    const requests: RequestEvent[] = [];
    const retries: RetryEvent[] = [];
    const transport = createTransport({
      fetch,
      authenticate: serviceAuthenticator(token),
      retry: { baseDelayMs: 1 },
      hooks: { onRequest: (e) => requests.push(e), onRetry: (e) => retries.push(e) },
    });
    const response = await transport(
      new Request('http://127.0.0.1:1/orders/1?x=1', { method: 'PUT', body: '{"price":"1"}' }),
    );
    expect(response.status).toBe(200);
    expect(sent.map((s) => s.body)).toEqual(['{"price":"1"}', '{"price":"1"}']);
    const jwts = sent.map((s) => s.request.headers.get('x-service-auth') ?? '');
    expect(jwts[0]).not.toBe(jwts[1]);
    expect(decodeJwt(jwts[1] ?? '').nonce as number).toBeGreaterThan(
      decodeJwt(jwts[0] ?? '').nonce as number,
    );
    expect(decodeJwt(jwts[0] ?? '').path).toBe('/orders/1?x=1');
    expect(requests.map((e) => e.headers['x-service-auth'])).toEqual(['[redacted]', '[redacted]']);
    expect(JSON.stringify(requests)).not.toContain(jwts[0]);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, reason: 'status 503' })]);
  });

  it('honours Retry-After, and hands back a 429 whose wait is longer than it may wait', async () => {
    const short = scriptedFetch([status(429, { 'retry-after': '0' }), status(200)]);
    const transport = createTransport({ fetch: short.fetch });
    expect((await transport(new Request('http://127.0.0.1:1/products'))).status).toBe(200);
    expect(short.sent).toHaveLength(2);

    const long = scriptedFetch([status(429, { 'retry-after': '300' }), status(200)]);
    const patient = createTransport({ fetch: long.fetch });
    expect((await patient(new Request('http://127.0.0.1:1/products'))).status).toBe(429);
    expect(long.sent).toHaveLength(1);
  });

  it('does not retry a POST unless told to', async () => {
    const once = scriptedFetch([status(503), status(200)]);
    const transport = createTransport({ fetch: once.fetch, retry: { baseDelayMs: 1 } });
    expect(
      (await transport(new Request('http://127.0.0.1:1/orders', { method: 'POST', body: '{}' })))
        .status,
    ).toBe(503);
    expect(once.sent).toHaveLength(1);

    const twice = scriptedFetch([status(503), status(200)]);
    const opted = createTransport({
      fetch: twice.fetch,
      retry: { baseDelayMs: 1, methods: ['POST'] },
    });
    expect(
      (await opted(new Request('http://127.0.0.1:1/orders', { method: 'POST', body: '{}' })))
        .status,
    ).toBe(200);
  });

  it('retries a network failure of an idempotent call, then reports it as a TransportError', async () => {
    const { fetch, sent } = scriptedFetch([
      new TypeError('fetch failed'),
      new TypeError('fetch failed'),
      new TypeError('fetch failed'),
    ]);
    const transport = createTransport({ fetch, retry: { baseDelayMs: 1 } });
    const error = await transport(new Request('http://127.0.0.1:1/accounts')).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({
      reason: 'network',
      request: { method: 'GET', path: '/accounts' },
    });
    expect(sent).toHaveLength(3);
  });

  it('times out an attempt that gets no answer', async () => {
    const slow = scriptedFetch(['hang']);
    const transport = createTransport({ fetch: slow.fetch, timeoutMs: 20, retry: false });
    await expect(transport(new Request('http://127.0.0.1:1/accounts'))).rejects.toMatchObject({
      name: 'TransportError',
      reason: 'timeout',
    });
  });

  it('tells an abort by the caller apart from a timeout', async () => {
    const stopped = scriptedFetch(['hang']);
    const caller = new AbortController();
    const pending = createTransport({ fetch: stopped.fetch })(
      new Request('http://127.0.0.1:1/accounts', { signal: caller.signal }),
    );
    caller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'TransportError', reason: 'aborted' });
  });
});

describe('the global fetch', () => {
  it('is looked up per call, so one installed after the transport was made is used', async () => {
    const transport = createTransport({ retry: false });
    const original = globalThis.fetch;
    const seen: string[] = [];
    globalThis.fetch = async (input) => {
      seen.push(input instanceof Request ? input.url : String(input));
      return new Response('{}', { status: 200 });
    };
    try {
      expect((await transport(new Request('http://127.0.0.1:1/late'))).status).toBe(200);
    } finally {
      globalThis.fetch = original;
    }
    expect(seen).toEqual(['http://127.0.0.1:1/late']);
  });
});
