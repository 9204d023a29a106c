import { zErrorMessage, zListOrdersResponse } from '@exchange-kit/contract/exchange/schemas';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'zod/mini';
import { addToken } from '../seeding.js';
import type { RunningSandbox } from '../server.js';
import { clientFor, newUser, runCommandLine, send, startTestSandbox } from '../test-support.js';
import { RateLimiter } from './rate-limit.js';

let sandbox: RunningSandbox;
let clock = 1_800_000_000_000;

beforeAll(async () => {
  sandbox = await startTestSandbox({
    now: () => clock,
    rateLimit: { calls: 3, windowMs: 60_000 },
  });
});
afterAll(() => sandbox.close());

describe('the rate limit per token', () => {
  it('refuses the call after the limit with 429 and the service message', async () => {
    const { call } = await newUser(sandbox);
    for (let n = 0; n < 3; n++) expect((await call('GET', '/accounts')).status).toBe(200);
    const fourth = await call('GET', '/accounts');
    expect(fourth.status).toBe(429);
    expect(parse(zErrorMessage, fourth.body)).toEqual({
      message: 'API rate limit exceeded. Please retry after 60s',
    });
    clock += 30_000;
    expect((await call('GET', '/accounts')).body).toEqual({
      message: 'API rate limit exceeded. Please retry after 30s',
    });
  });

  it('changes nothing and spends no nonce when it refuses; the same call passes after the wait', async () => {
    const { call, userId, tokenId, tokenSecret } = await newUser(sandbox);
    for (let n = 0; n < 3; n++) expect((await call('GET', '/orders')).status).toBe(200);
    const body = JSON.stringify({
      order_type: 'limit',
      product_id: 1,
      side: 'buy',
      quantity: '0.01',
      price: '100',
    });
    const headers = {
      'X-Service-Auth': await signServiceAuth({ tokenId, tokenSecret }, { path: '/orders' }),
      'content-type': 'application/json',
    };
    const refused = await fetch(`${sandbox.exchangeUrl}/orders`, { method: 'POST', headers, body });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    const orders = sandbox.sequencer.state.exchange.ordersByUser.of(userId);
    expect(orders).toEqual([]);

    clock += 60_000;
    const again = await fetch(`${sandbox.exchangeUrl}/orders`, { method: 'POST', headers, body });
    expect(again.status).toBe(200);
    const listed = parse(zListOrdersResponse, (await call('GET', '/orders')).body);
    expect(listed.models).toHaveLength(1);
  });

  it('counts each token apart and leaves public reads alone', async () => {
    const { call, userId } = await newUser(sandbox);
    for (let n = 0; n < 3; n++) expect((await call('GET', '/accounts')).status).toBe(200);
    expect((await call('GET', '/accounts')).status).toBe(429);
    const other = clientFor(
      sandbox,
      await sandbox.sequencer.run((journal) => addToken(journal, userId)),
    );
    expect((await other('GET', '/accounts')).status).toBe(200);
    for (let n = 0; n < 5; n++) {
      expect((await send(sandbox.exchangeUrl, 'GET', '/products', {})).status).toBe(200);
    }
  });
});

describe('RateLimiter', () => {
  it('lets a call in again as soon as the oldest one leaves the window', () => {
    const limiter = new RateLimiter({ calls: 2, windowMs: 10_000 });
    expect(limiter.take('t', 0)).toBeUndefined();
    expect(limiter.take('t', 4_000)).toBeUndefined();
    expect(limiter.take('t', 5_000)).toEqual({ retryAfterSeconds: 5 });
    // Refused calls are not counted: the wait it named is enough.
    expect(limiter.take('t', 9_999)).toEqual({ retryAfterSeconds: 1 });
    expect(limiter.take('t', 10_000)).toBeUndefined();
    expect(limiter.take('t', 10_001)).toEqual({ retryAfterSeconds: 4 });
  });
});

describe('--rate-limit', () => {
  it('refuses a value that is neither off nor CALLS/SECONDS, naming the option', () => {
    const result = runCommandLine(['--rate-limit', '600']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--rate-limit: "600" is neither off nor CALLS\/SECONDS/);
  });
});
