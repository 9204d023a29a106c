import { getEventListeners, once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { serviceAuthenticator } from '../auth/authenticate.js';
import { TransportError } from '../errors.js';
import { type Handler, loopbackServer } from './loopback.test-support.js';
import {
  type CallRequest,
  createSender,
  type RetryEvent,
  type TransportOptions,
} from './transport.js';

// A real server on loopback; each test says how it answers. On Node the default sender is
// node:http, so everything here crosses a real socket.
let handle: Handler;
const loopback = loopbackServer((request, body, response) => handle(request, body, response));
const { seen, arrived } = loopback;

const json = (status: number, value: unknown, headers: Record<string, string> = {}): Handler => {
  return (_request, _body, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(value));
  };
};

function call(path: string, init: Partial<CallRequest> = {}): CallRequest {
  return { method: 'GET', url: loopback.origin + path, path, ...init };
}

const sender = (options: TransportOptions = {}) => createSender({ retry: false, ...options });
const token = { tokenId: 'node-token', tokenSecret: 'node-secret' };

describe('the Node sender', () => {
  it('sends method, path, headers and body as given, and reads status, headers and body', async () => {
    handle = (_request, _body, response) => {
      response.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-trace': 'abc' });
      response.end('{"ok":true}');
    };
    const answer = await sender({ authenticate: serviceAuthenticator(token) })(
      call('/orders/client:a%20b?x=1&y=%C3%A9', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-service-api-version': '2' },
        body: '{"price":"1.5"}',
      }),
    );
    expect(answer).toMatchObject({ status: 201, statusText: 'Made', text: '{"ok":true}' });
    expect(answer.headers.get('x-trace')).toBe('abc');
    const [request] = seen;
    expect(request).toMatchObject({
      method: 'PUT',
      url: '/orders/client:a%20b?x=1&y=%C3%A9',
      body: '{"price":"1.5"}',
      headers: {
        'content-type': 'application/json',
        'content-length': '15',
        'x-service-api-version': '2',
      },
    });
    expect(decodeJwt(request?.headers['x-service-auth'] as string).path).toBe(
      '/orders/client:a%20b?x=1&y=%C3%A9',
    );
  });

  it('keeps the connection alive between calls', async () => {
    handle = json(200, {});
    const send = sender();
    for (let n = 0; n < 5; n++) await send(call(`/accounts?n=${n}`));
    expect(seen).toHaveLength(5);
    expect(new Set(seen.map((request) => request.port)).size).toBe(1);
  });

  it('reads a large body whole, multibyte characters split across chunks included', async () => {
    const value = { models: Array.from({ length: 20_000 }, (_, id) => ({ id, name: 'é€😀' })) };
    handle = json(200, value);
    const answer = await sender()(call('/orders'));
    expect(answer.text.length).toBeGreaterThan(500_000);
    expect(JSON.parse(answer.text)).toEqual(value);
  });

  it('reads a chunked body sent piece by piece', async () => {
    handle = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const pieces = ['{"models":[', '1,', '2,', '3', ']}'];
      const next = () => {
        const piece = pieces.shift();
        if (piece === undefined) return response.end();
        response.write(piece);
        setTimeout(next, 5);
      };
      next();
    };
    const answer = await sender()(call('/orders'));
    expect(answer.headers.get('transfer-encoding')).toBe('chunked');
    expect(JSON.parse(answer.text)).toEqual({ models: [1, 2, 3] });
  });

  it('hands a redirect back as it is instead of following it with the credentials', async () => {
    handle = (_request, _body, response) => {
      response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
      response.end();
    };
    const answer = await sender()(call('/accounts'));
    expect(answer.status).toBe(302);
    expect(seen).toHaveLength(1);
  });

  it('times out an attempt with no answer, and one whose body stalls', async () => {
    handle = () => undefined;
    await expect(sender({ timeoutMs: 50 })(call('/accounts'))).rejects.toMatchObject({
      name: 'TransportError',
      reason: 'timeout',
    });
    handle = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"models":[');
    };
    await expect(sender({ timeoutMs: 50 })(call('/orders'))).rejects.toMatchObject({
      name: 'TransportError',
      reason: 'timeout',
      request: { method: 'GET', path: '/orders' },
    });
  });

  it('stops on the caller’s signal, and sends nothing for a signal already aborted', async () => {
    handle = () => undefined;
    const caller = new AbortController();
    const pending = sender()(call('/accounts', { signal: caller.signal }));
    await arrived(1);
    caller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'TransportError', reason: 'aborted' });

    seen.length = 0;
    await expect(
      sender()(call('/accounts', { signal: AbortSignal.abort() })),
    ).rejects.toMatchObject({ name: 'TransportError', reason: 'aborted' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toHaveLength(0);
  });

  it('adds one listener to a signal fifty calls share, and leaves none once they and their retries end', async () => {
    const warnings: Error[] = [];
    const warned = (warning: Error) => warnings.push(warning);
    process.on('warning', warned);
    try {
      // Each path's first attempt is answered 503, its retry after a backoff 200.
      const tried = new Set<string>();
      handle = (request, body, response) => {
        const again = tried.has(String(request.url));
        tried.add(String(request.url));
        (again ? json(200, { ok: true }) : json(503, { message: 'busy' }))(request, body, response);
      };
      const shared = new AbortController();
      const calls = Array.from({ length: 50 }, (_, n) =>
        createSender({ retry: { baseDelayMs: 1 } })(
          call(`/orders/${n}`, { signal: shared.signal }),
        ),
      );
      await arrived(50);
      expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
      const answers = await Promise.all(calls);
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
      // A warning is emitted on the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual(
        [],
      );
    } finally {
      process.off('warning', warned);
    }
  });

  it('stops every call sharing a signal when it aborts', async () => {
    handle = () => undefined;
    const shared = new AbortController();
    const calls = Array.from({ length: 20 }, (_, n) =>
      sender()(call(`/accounts/${n}`, { signal: shared.signal })),
    );
    await arrived(20);
    shared.abort();
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(calls.map(() => 'rejected'));
    expect(outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason.reason)).toEqual(
      calls.map(() => 'aborted'),
    );
  });

  it('reports a connection reset, before or during the answer, as a network TransportError', async () => {
    handle = (request) => request.socket.destroy();
    const before = await sender()(call('/accounts')).catch((error: unknown) => error);
    expect(before).toBeInstanceOf(TransportError);
    expect(before).toMatchObject({ reason: 'network', request: { path: '/accounts' } });

    handle = (request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('{"models":[');
      setTimeout(() => request.socket.destroy(), 10);
    };
    await expect(sender()(call('/orders'))).rejects.toMatchObject({
      name: 'TransportError',
      reason: 'network',
    });
  });

  it('retries a reset GET and a 503 with Retry-After, each attempt with a fresh JWT', async () => {
    const script: Handler[] = [
      (request) => request.socket.destroy(),
      json(503, { message: 'busy' }, { 'retry-after': '0' }),
      json(200, { ok: true }),
    ];
    handle = (request, body, response) => script.shift()?.(request, body, response);
    const retries: RetryEvent[] = [];
    const answer = await createSender({
      authenticate: serviceAuthenticator(token),
      retry: { baseDelayMs: 1 },
      hooks: { onRetry: (event) => retries.push(event) },
    })(call('/orders/1', { method: 'PUT', body: '{"price":"2"}' }));
    expect(answer.status).toBe(200);
    expect(retries.map((event) => event.reason)).toEqual(['network error', 'status 503']);
    expect(seen.map((request) => request.body)).toEqual([
      '{"price":"2"}',
      '{"price":"2"}',
      '{"price":"2"}',
    ]);
    const nonces = seen.map(
      (request) => decodeJwt(request.headers['x-service-auth'] as string).nonce as number,
    );
    expect(new Set(nonces).size).toBe(3);
    expect(nonces).toEqual([...nonces].sort((a, b) => a - b));
  });

  it('names the cause of a refused connection, through node:http and through a fetch', async () => {
    // A port that was just free: nothing listens on it now.
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, 'close');
    const request: CallRequest = {
      method: 'GET',
      url: `http://127.0.0.1:${port}/orders`,
      path: '/orders',
    };
    const expected = `GET /orders: network error (connect ECONNREFUSED 127.0.0.1:${port})`;
    await expect(sender()(request)).rejects.toThrow(expected);
    await expect(sender({ fetch })(request)).rejects.toThrow(expected);
  });

  it('fails the call, with nothing sent, when an authenticator sets a header unfit to send', async () => {
    handle = json(200, { ok: true });
    const injecting: TransportOptions['authenticate'] = (request) =>
      request.headers.set('x-service-auth', 'jwt\r\nx-injected: 1');
    for (const options of [{}, { fetch }] as TransportOptions[]) {
      const failure = await sender({ ...options, authenticate: injecting })(call('/orders')).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(TypeError);
      expect(String(failure)).toContain('control character');
    }
    expect(seen).toHaveLength(0);
  });

  it('answers a call whose hooks throw, sent once, and says so on the console', async () => {
    handle = json(201, { id: 1 });
    const broken = () => {
      throw new Error('logger broke');
    };
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const answer = await sender({
        authenticate: serviceAuthenticator(token),
        retry: {},
        hooks: { onRequest: broken, onResponse: broken },
      })(call('/orders', { method: 'POST', body: '{}' }));
      expect(answer.status).toBe(201);
      expect(seen).toHaveLength(1);
      expect(printed.mock.calls.map(([message]) => message)).toEqual([
        'exchange-kit: hooks.onRequest threw; the call goes on without it',
        'exchange-kit: hooks.onResponse threw; the call goes on without it',
      ]);
    } finally {
      printed.mockRestore();
    }
  });

  it('names a TLS failure by its code and reason, without OpenSSL internals', async () => {
    handle = json(200, {});
    const request = call('/orders');
    request.url = request.url.replace('http:', 'https:');
    const failure = await sender()(request).catch((error: unknown) => error);
    const { message } = failure as Error;
    // Node says `write EPROTO <OpenSSL's id, code, library, function, reason, file, line>`.
    expect(message).toMatch(/^GET \/orders: network error \(write EPROTO [a-z][a-z ]*\)$/);
  });

  it('sends through the fetch it is given instead', async () => {
    handle = json(200, { via: 'server' });
    const urls: string[] = [];
    const answer = await sender({
      fetch: async (input, init) => {
        urls.push(String(input));
        return fetch(input, init);
      },
    })(call('/accounts?x=1'));
    expect(urls).toEqual([`${loopback.origin}/accounts?x=1`]);
    expect(JSON.parse(answer.text)).toEqual({ via: 'server' });
  });
});
