/**
 * How query parameters are read (Fastify's inject on the demo sandbox in memory): one given
 * more than once is refused, naming it, since which value was meant cannot be told; a whole
 * number past the safe range is refused as too large.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MemoryApp, memoryApp } from '../testing/memory-app.js';
import { type MemorySandbox, signedNow } from '../testing/memory-sandbox.js';

let sandbox: MemorySandbox;
let app: MemoryApp['app'];

beforeAll(async () => {
  ({ sandbox, app } = await memoryApp());
});
afterAll(() => app.close());

async function get(url: string, signed = false) {
  const headers = signed
    ? {
        'X-Quoine-Auth': signedNow(
          { tokenId: sandbox.credentials.tokenId, tokenSecret: sandbox.credentials.tokenSecret },
          { path: url },
        ),
      }
    : {};
  const answer = await app.inject({ method: 'GET', url, headers });
  return { status: answer.statusCode, body: answer.json() };
}

describe('a query parameter given more than once', () => {
  it('is refused with 400 naming it, whichever of its values comes first', async () => {
    for (const [url, field] of [
      ['/executions?product_id=1&limit=1&limit=1001', 'limit'],
      ['/executions?product_id=1&limit=1001&limit=1', 'limit'],
      ['/executions?product_id=1&product_id=abc', 'product_id'],
      ['/executions?product_id=1&limit=1&limit=1', 'limit'],
    ] as const) {
      expect(await get(url), url).toEqual({
        status: 400,
        body: { errors: { [field]: ['given_more_than_once'] } },
      });
    }
  });

  it('names each repeated one of a signed call', async () => {
    const answer = await get(
      '/executions/me?product_id=1&with_details=1&with_details=2&limit=1&limit=1',
      true,
    );
    expect(answer).toEqual({
      status: 400,
      body: { errors: { with_details: ['given_more_than_once'], limit: ['given_more_than_once'] } },
    });
  });

  it('leaves alone a name the operation does not take, as once, whatever the name', async () => {
    for (const extra of ['_=1&_=2', '__proto__=1&__proto__=2', 'constructor=1&constructor=2']) {
      const answer = await get(`/executions?product_id=1&limit=1&${extra}`);
      expect(answer.status, extra).toBe(200);
      expect(answer.body).toMatchObject({ current_page: 1 });
    }
  });
});

describe('a whole number past the safe range', () => {
  it('is refused as too large where the parameter is a number', async () => {
    expect(await get('/executions?product_id=1&page=10000000000000000')).toEqual({
      status: 400,
      body: { errors: { page: ['must_be_at_most_9007199254740991'] } },
    });
  });

  it('is refused as too large past what a double holds, and a fraction as no integer', async () => {
    expect(await get(`/executions?product_id=1&page=${'9'.repeat(400)}`)).toEqual({
      status: 400,
      body: { errors: { page: ['must_be_at_most_9007199254740991'] } },
    });
    expect(await get('/executions?product_id=1&limit=1.5')).toEqual({
      status: 400,
      body: { errors: { limit: ['must_be_an_integer'] } },
    });
  });

  it('keeps every digit where the parameter may be text: an order id names no order', async () => {
    expect(await get('/orders/99999999999999999999', true)).toMatchObject({ status: 404 });
  });
});
