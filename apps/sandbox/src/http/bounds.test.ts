/**
 * Bodies no client means to send, over real HTTP: each is refused with a 4xx naming the
 * field and the reason, and nothing is stored. The bounds come from the bundled specs.
 */
import exchangeSpec from '@exchange-kit/contract/exchange/openapi.json' with { type: 'json' };
import partnerSpec from '@exchange-kit/contract/partner/openapi.json' with { type: 'json' };
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import {
  type Client,
  demoClient,
  type ParsedResponse,
  send,
  startTestSandbox,
} from '../test-support.js';

let sandbox: RunningSandbox;
let call: Client;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  call = demoClient(sandbox);
});
afterAll(() => sandbox.close());

const limits = partnerSpec.info['x-request-limits'];
const depth = exchangeSpec.info['x-request-limits']['max-nesting-depth'];

function partner(
  path: string,
  body: string,
  contentType = 'application/json',
): Promise<ParsedResponse> {
  return send(sandbox.partnerUrl, 'POST', path, { 'content-type': contentType }, body);
}

async function count(table: string): Promise<number> {
  const { rows } = await sandbox.database.transaction((tx) =>
    tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`),
  );
  return rows[0]?.n ?? -1;
}

function nested(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

const limitBuy = {
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: '0.001',
  price: '100',
};

async function newSession(): Promise<string> {
  const answer = await partner(
    '/api/v1/session',
    JSON.stringify({ public_api_key: sandbox.credentials.publicApiKey }),
  );
  expect(answer.status).toBe(200);
  return (answer.body as { payload: { session_id: string } }).payload.session_id;
}

describe('nesting', () => {
  it('refuses a body nested 5,000 levels deep on an anonymous call, naming the limit', async () => {
    const sessions = await count('qe_sessions');
    const body = `{"public_api_key":"${sandbox.credentials.publicApiKey}","identity":{"a":${nested(5000)}}}`;
    const answer = await partner('/api/v1/session', body);
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({
      success: false,
      errors: { body: [`nested_deeper_than_${depth}_levels`] },
    });
    expect(await count('qe_sessions')).toBe(sessions);
  });

  it('refuses a deep body on a signed call as well, and takes one at the limit', async () => {
    const deep = await call('POST', '/orders', { rawBody: nested(5000) });
    expect(deep.status).toBe(422);
    expect(deep.body).toEqual({ errors: { body: [`nested_deeper_than_${depth}_levels`] } });
    const atLimit = await call('POST', '/orders', { rawBody: nested(depth) });
    expect(atLimit.status).toBe(422);
    expect(atLimit.body).toEqual({ errors: { body: [expect.not.stringMatching(/nested/)] } });
  });

  it('counts brackets inside strings as text', async () => {
    const identity = { note: '['.repeat(depth * 4) };
    const answer = await partner(
      '/api/v1/session',
      JSON.stringify({ public_api_key: sandbox.credentials.publicApiKey, identity }),
    );
    expect(answer.status).toBe(200);
  });
});

describe('lone surrogates', () => {
  it('refuses a client_order_id holding one, and stores no order', async () => {
    const orders = await count('orders');
    const first = await call('POST', '/orders', {
      rawBody: JSON.stringify({ ...limitBuy, client_order_id: 'dup-\ud800' }),
    });
    const second = await call('POST', '/orders', {
      rawBody: JSON.stringify({ ...limitBuy, client_order_id: 'dup-\ud801' }),
    });
    for (const answer of [first, second]) {
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({
        errors: { client_order_id: ['must_not_contain_lone_surrogate'] },
      });
    }
    expect(await count('orders')).toBe(orders);
  });

  it('refuses one in a free object stored as jsonb, in a key or a value', async () => {
    const sessions = await count('qe_sessions');
    const key = sandbox.credentials.publicApiKey;
    const inValue = await partner(
      '/api/v1/session',
      `{"public_api_key":"${key}","identity":{"name":"\\udc00"}}`,
    );
    const inKey = await partner(
      '/api/v1/session',
      `{"public_api_key":"${key}","identity":{"\\ud800x":"y"}}`,
    );
    expect(inValue.body).toMatchObject({
      errors: { 'identity.name': ['must_not_contain_lone_surrogate'] },
    });
    expect(inKey.body).toMatchObject({
      errors: { 'identity.\ud800x': ['must_not_contain_lone_surrogate'] },
    });
    expect([inValue.status, inKey.status]).toEqual([422, 422]);
    expect(await count('qe_sessions')).toBe(sessions);
  });

  it('stores a well-formed pair faithfully', async () => {
    const id = 'emoji-\ud83d\ude00';
    const placed = await call('POST', '/orders', { body: { ...limitBuy, client_order_id: id } });
    expect(placed.status).toBe(200);
    expect((placed.body as { client_order_id: string }).client_order_id).toBe(id);
  });
});

describe('lengths, counts and sizes from the spec', () => {
  it('refuses a client_ref of a few thousand characters with its bound', async () => {
    const session = await newSession();
    const transactions = await count('qe_transactions');
    const answer = await partner(
      '/api/v1/transaction/intent_to_trade',
      JSON.stringify({
        session_id: session,
        client_ref: 'r'.repeat(4000),
        side: 'buy',
        symbol: 'BTC/USDC',
        currency: 'BTC',
        quantity: '0.01',
      }),
    );
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ errors: { client_ref: ['longer_than_255_characters'] } });
    expect(await count('qe_transactions')).toBe(transactions);
  });

  it('refuses a free object with more properties than its maxProperties', async () => {
    const identity = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
    const answer = await partner(
      '/api/v1/session',
      JSON.stringify({ public_api_key: sandbox.credentials.publicApiKey, identity }),
    );
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ errors: { identity: ['more_than_64_properties'] } });
  });

  it('refuses a body over the documented size unread', async () => {
    const big = JSON.stringify({
      public_api_key: sandbox.credentials.publicApiKey,
      identity: { blob: 'x'.repeat(limits['max-body-bytes']) },
    });
    const answer = await partner('/api/v1/session', big);
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({
      errors: { body: [`larger_than_${limits['max-body-bytes']}_bytes`] },
    });
  });
});

describe('keys named like object internals', () => {
  it('reads __proto__ and constructor as plain keys, never as a schema or a 5xx', async () => {
    const key = sandbox.credentials.publicApiKey;
    const bodies = [
      `{"public_api_key":"${key}","__proto__":{"public_api_key":"x"}}`,
      `{"public_api_key":"${key}","identity":{"__proto__":{"a":1},"constructor":{"b":2}}}`,
      `{"__proto__":{"order":{"price":"1e5"}}}`,
    ];
    for (const body of bodies.slice(0, 2)) {
      const answer = await partner('/api/v1/session', body);
      expect(answer.status, body).toBe(200);
    }
    const order = await call('POST', '/orders', { rawBody: bodies[2] });
    expect(order.status).toBe(422);
  });
});

describe('content types', () => {
  it('refuses a body sent as anything but JSON with 415', async () => {
    const orders = await count('orders');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', '']) {
      const answer = await call('POST', '/orders', {
        body: limitBuy,
        headers: { 'content-type': type },
      });
      expect(answer.status, type).toBe(415);
      expect(answer.body).toEqual({ errors: { 'content-type': ['must_be_application/json'] } });
    }
    expect(await count('orders')).toBe(orders);
  });

  it('refuses a body said to be encoded, and takes one said to be as sent', async () => {
    const orders = await count('orders');
    for (const encoding of ['gzip', 'br', 'bogus']) {
      const answer = await call('POST', '/orders', {
        body: limitBuy,
        headers: { 'content-encoding': encoding },
      });
      expect([encoding, answer.status, answer.body]).toEqual([
        encoding,
        415,
        { errors: { 'content-encoding': ['not_supported'] } },
      ]);
    }
    expect(await count('orders')).toBe(orders);
    for (const encoding of ['identity', '']) {
      const plain = await call('POST', '/orders', {
        body: limitBuy,
        headers: { 'content-encoding': encoding, 'content-type': 'application/vnd.api+json' },
      });
      expect([encoding, plain.status]).toEqual([encoding, 200]);
    }
  });

  it('reads a body of whitespace alone as malformed or refused, never as no body', async () => {
    const placed = await call('POST', '/orders', { body: limitBuy });
    expect(placed.status).toBe(200);
    const id = (placed.body as { id: number }).id;
    // A cancel_all read as having no body would cancel every live order.
    const sent: [string, Record<string, string>, number][] = [
      ['\t', { 'content-type': 'text/plain' }, 415],
      ['\n', { 'content-type': 'application/x-www-form-urlencoded' }, 415],
      [' ', { 'content-encoding': 'gzip' }, 415],
      [' ', {}, 400],
      ['\r\n', {}, 400],
      ['\u00a0', {}, 400],
      ['\ufeff', {}, 400],
    ];
    for (const [rawBody, headers, status] of sent) {
      const answer = await call('PUT', '/orders/cancel_all', { rawBody, headers });
      expect([JSON.stringify(rawBody), answer.status]).toEqual([JSON.stringify(rawBody), status]);
    }
    const order = await call('GET', `/orders/${id}`);
    expect((order.body as { status: string }).status).toBe('live');
    expect((await call('PUT', `/orders/${id}/cancel`)).status).toBe(200);
  });

  it('refuses a body that is no UTF-8, and stores nothing', async () => {
    const orders = await count('orders');
    const json = JSON.stringify({ ...limitBuy, client_order_id: 'c-XX' });
    const at = Buffer.from(json).indexOf('XX');
    // A byte no UTF-8 has, a surrogate written as bytes, a NUL written long, a cut sequence.
    for (const bytes of [[0xff], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xe2, 0x82]]) {
      const sent = Buffer.concat([
        Buffer.from(json).subarray(0, at),
        Buffer.from(bytes),
        Buffer.from(json).subarray(at + 2),
      ]);
      const answer = await call('POST', '/orders', { rawBody: sent });
      expect([bytes, answer.status, answer.body]).toEqual([
        bytes,
        422,
        { errors: { body: ['must_be_utf-8'] } },
      ]);
    }
    expect(await count('orders')).toBe(orders);
  });

  it('takes JSON with a charset', async () => {
    const answer = await call('POST', '/orders', {
      body: limitBuy,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(answer.status).toBe(200);
  });
});

describe('query values', () => {
  it('refuses a parameter whose escapes spell no UTF-8, naming it, and reads valid ones', async () => {
    const sent: [string, string][] = [
      ['/balance_history?currency=%FF', 'currency'],
      ['/loans?currency=%ED%A0%80', 'currency'],
      ['/trades?funding_currency=%C0%80', 'funding_currency'],
    ];
    for (const [path, name] of sent) {
      const answer = await call('GET', path);
      expect([path, answer.status, answer.body]).toEqual([
        path,
        400,
        { errors: { [name]: ['must_be_utf-8'] } },
      ]);
    }
    // A parameter the operation does not take is left alone, as any such name is.
    expect((await call('GET', '/balance_history?ignored=%FF&currency=BTC')).status).toBe(200);
    const spelled = await call('GET', '/balance_history?currency=%42%54%43');
    const plain = await call('GET', '/balance_history?currency=BTC');
    expect(spelled).toEqual(plain);
  });
});

describe('keys given twice', () => {
  it('refuses a body whose object gives a key twice, naming its path, and stores nothing', async () => {
    const orders = await count('orders');
    const order = JSON.stringify(limitBuy).slice(1, -1);
    const bodies: [string, string][] = [
      [`{${order},"quantity":"1"}`, 'quantity'],
      [`{"order":{${order},"side":"sell"}}`, 'order.side'],
      [`{"order":{${order}},"order":{${order}}}`, 'order'],
      // The same key once its escape is read: JSON.parse keeps the last.
      [`{${order},"s\\u0069de":"sell"}`, 'side'],
    ];
    for (const [body, field] of bodies) {
      const answer = await call('POST', '/orders', { rawBody: body });
      expect([body, answer.status, answer.body]).toEqual([
        body,
        422,
        { errors: { [field]: ['given_more_than_once'] } },
      ]);
    }
    expect(await count('orders')).toBe(orders);
    const twice = await partner(
      '/api/v1/session',
      `{"public_api_key":"${sandbox.credentials.publicApiKey}","public_api_key":"x"}`,
    );
    expect(twice.status).toBeGreaterThanOrEqual(400);
    expect(twice.status).toBeLessThan(500);
    expect(JSON.stringify(twice.body)).toContain('given_more_than_once');
  });

  it('counts colons and quotes inside strings as text', async () => {
    const answer = await call('POST', '/orders', {
      rawBody: JSON.stringify({ ...limitBuy, client_order_id: 'a:"b":{c}:\\:' }),
    });
    expect(answer.status).toBe(200);
  });
});
