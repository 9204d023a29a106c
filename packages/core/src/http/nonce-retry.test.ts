import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { serviceAuthenticator } from '../auth/authenticate.js';
import { type Handler, loopbackServer } from './loopback.test-support.js';
import {
  type CallRequest,
  createSender,
  isNonceRefusal,
  type RetryEvent,
  type TransportOptions,
} from './transport.js';

// A real server on loopback that answers as the spec documents a refused nonce; the Node
// sender crosses a real socket for every attempt.
let handle: Handler;
const loopback = loopbackServer((request, body, response) => handle(request, body, response));
const { seen } = loopback;

const token = { tokenId: 'nonce-token', tokenSecret: 'nonce-secret-0123456789' };
const authenticate = serviceAuthenticator(token);

const plain = (status: number, text: string): Handler => {
  return (_request, _body, response) => {
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(text);
  };
};
const json = (status: number, value: unknown): Handler => {
  return (_request, _body, response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(value));
  };
};
const ok = json(200, { ok: true });

/** Refuses the first `times` requests with `refusal`, then answers with `then`. */
function refuseFirst(times: number, refusal: Handler, then: Handler = ok): Handler {
  let count = 0;
  return (request, body, response) => (count++ < times ? refusal : then)(request, body, response);
}

const order = '{"order_type":"limit","product_id":1,"side":"buy","quantity":"1","price":"5"}';
function post(init: Partial<CallRequest> = {}): CallRequest {
  return {
    method: 'POST',
    url: `${loopback.origin}/orders`,
    path: '/orders',
    headers: { 'content-type': 'application/json' },
    body: order,
    ...init,
  };
}

function sender(options: TransportOptions = {}) {
  const retries: RetryEvent[] = [];
  const send = createSender({
    authenticate,
    hooks: { onRetry: (event) => retries.push(event) },
    ...options,
  });
  return { send, retries };
}

const nonceOf = (index: number) =>
  decodeJwt(seen[index]?.headers['x-service-auth'] as string).nonce as number;

describe('a call refused for its nonce', () => {
  it('is signed anew with a larger nonce and sent again, POST included, body unchanged', async () => {
    handle = refuseFirst(2, plain(401, 'Nonce is too small'));
    const { send, retries } = sender();
    const answer = await send(post());
    expect(answer.status).toBe(200);
    expect(seen).toHaveLength(3);
    expect(seen.map((request) => request.body)).toEqual([order, order, order]);
    expect(seen.map((request) => request.method)).toEqual(['POST', 'POST', 'POST']);
    expect(nonceOf(1)).toBeGreaterThan(nonceOf(0));
    expect(nonceOf(2)).toBeGreaterThan(nonceOf(1));
    expect(retries.map((event) => [event.attempt, event.reason])).toEqual([
      [1, 'nonce too small'],
      [2, 'nonce too small'],
    ]);
    for (const event of retries) expect(JSON.stringify(event)).not.toContain(token.tokenSecret);
  });

  it('is recognised in the JSON form of the refusal too', async () => {
    handle = refuseFirst(1, json(401, { message: 'Nonce is too small' }));
    const { send } = sender();
    expect((await send(post())).status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(nonceOf(1)).toBeGreaterThan(nonceOf(0));
  });

  it('is sent again a bounded number of times, then the refusal goes to the caller', async () => {
    handle = plain(401, 'Nonce is too small');
    const { send, retries } = sender({ retry: { nonceRetries: 3 } });
    const answer = await send(post());
    expect(answer).toMatchObject({ status: 401, text: 'Nonce is too small' });
    expect(seen).toHaveLength(4);
    expect(retries).toHaveLength(3);
    // The jitter is a few ms per resend, not a backoff of hundreds.
    for (const event of retries) expect(event.delayMs).toBeLessThan(30);
  });

  it('is not sent again when retries are off', async () => {
    handle = plain(401, 'Nonce is too small');
    const { send } = sender({ retry: false });
    expect((await send(post())).status).toBe(401);
    expect(seen).toHaveLength(1);
  });

  it('is not sent again when the call carried no nonce', async () => {
    handle = plain(401, 'Nonce is too small');
    const { send } = sender();
    const answer = await send(post({ sign: { withoutNonce: true } }));
    expect(answer.status).toBe(401);
    expect(seen).toHaveLength(1);
    const payload = decodeJwt(seen[0]?.headers['x-service-auth'] as string);
    expect(payload).toEqual({
      token_id: token.tokenId,
      path: '/orders',
      iat: expect.any(Number),
      jti: expect.any(String),
    });
  });
});

describe('signing right before the write', () => {
  it('fails the call with the signing error, unsent and not retried as a network error', async () => {
    handle = ok;
    const failure = new Error('no key');
    let signed = 0;
    const { send, retries } = sender({
      authenticate: () => {
        signed++;
        throw failure;
      },
    });
    await expect(send(post({ method: 'GET', body: undefined }))).rejects.toBe(failure);
    expect(signed).toBe(1);
    expect(retries).toEqual([]);
    expect(seen).toEqual([]);
  });
});

describe('other refusals', () => {
  const others: [string, number, Handler][] = [
    ['API Authentication failed', 401, plain(401, 'API Authentication failed')],
    ['Path does not match', 401, plain(401, 'Path does not match')],
    ['another JSON message', 401, json(401, { message: 'Nonce is too small, or expired' })],
    ['the nonce among field errors', 401, json(401, { errors: { nonce: ['too_small'] } })],
    ['the nonce text with another status', 400, plain(400, 'Nonce is too small')],
    ['the nonce JSON with another status', 422, json(422, { message: 'Nonce is too small' })],
  ];
  it.each(others)('%s (%i) is not sent again', async (_name, status, refusal) => {
    handle = refusal;
    const { send, retries } = sender();
    const answer = await send(post({ method: 'PUT', url: `${loopback.origin}/orders/1` }));
    expect(answer.status).toBe(status);
    expect(seen).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('are told apart from a nonce refusal by status and the documented body only', () => {
    expect(isNonceRefusal({ status: 401, text: 'Nonce is too small' })).toBe(true);
    expect(isNonceRefusal({ status: 401, text: 'Nonce is too small\n' })).toBe(true);
    expect(isNonceRefusal({ status: 401, text: '{"message":"Nonce is too small"}' })).toBe(true);
    expect(isNonceRefusal({ status: 401, text: 'Error: Nonce is too small' })).toBe(false);
    expect(isNonceRefusal({ status: 401, text: '{"message":["Nonce is too small"]}' })).toBe(false);
    expect(isNonceRefusal({ status: 401, text: '{"message":"Nonce is too small"' })).toBe(false);
    expect(isNonceRefusal({ status: 403, text: 'Nonce is too small' })).toBe(false);
  });
});

describe('a server that refuses every nonce not larger than the last one', () => {
  it('answers all of a burst of concurrent calls from one token, in bounded time', async () => {
    // As the exchange does: one last nonce per token. Of two calls that arrive within 1 ms the
    // second is decided first, as over several sockets a later call can overtake.
    let last = 0;
    let held: { decide: () => void; timer: NodeJS.Timeout } | undefined;
    handle = (request, _body, response) => {
      const decide = () => {
        const { nonce } = decodeJwt(request.headers['x-service-auth'] as string);
        const fresh = (nonce as number) > last;
        if (fresh) last = nonce as number;
        (fresh ? ok : plain(401, 'Nonce is too small'))(request, '', response);
      };
      if (held) {
        const earlier = held;
        held = undefined;
        clearTimeout(earlier.timer);
        decide();
        earlier.decide();
        return;
      }
      const timer = setTimeout(() => {
        held = undefined;
        decide();
      }, 1);
      held = { decide, timer };
    };
    const { send, retries } = sender();
    const calls = 200;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: calls }, (_, n) =>
        send(post({ method: n % 2 ? 'POST' : 'GET', body: n % 2 ? order : undefined })),
      ),
    );
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    // The refusals happened and were all resent: each one is a request the server saw.
    expect(retries.length).toBeGreaterThan(0);
    expect(seen.length).toBe(calls + retries.length);
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 30_000);
});
