/**
 * The exchange's earlier names at the edge (Fastify's inject on the demo sandbox in memory):
 * X-Quoine-Auth, X-Quoine-API-Version, a trailing slash, `with_details=true`.
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

const token = () => ({
  tokenId: sandbox.credentials.tokenId,
  tokenSecret: sandbox.credentials.tokenSecret,
});
const jwtFor = (path: string) => signedNow(token(), { path });

interface Call {
  method?: 'GET' | 'POST' | 'PUT' | 'OPTIONS';
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}

async function call({ method = 'GET', url, headers = {}, body }: Call) {
  const answer = await app.inject({
    method,
    url,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = answer.headers['content-type']?.toString().startsWith('application/json');
  return {
    status: answer.statusCode,
    headers: answer.headers,
    body: json ? answer.json() : answer.body,
  };
}

const limitBuy = (price: string) => ({
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: '0.01',
  price,
});

describe('X-Quoine-Auth and X-Quoine-API-Version', () => {
  it('takes X-Quoine-Auth alone as X-Service-Auth', async () => {
    const answer = await call({ url: '/orders', headers: { 'X-Quoine-Auth': jwtFor('/orders') } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ current_page: 1 });
  });

  it('takes both names carrying the same JWT', async () => {
    const jwt = jwtFor('/orders');
    const answer = await call({
      url: '/orders',
      headers: { 'X-Quoine-Auth': jwt, 'X-Service-Auth': jwt },
    });
    expect(answer.status).toBe(200);
  });

  it('refuses both names carrying different JWTs, naming the header', async () => {
    const answer = await call({
      url: '/orders',
      headers: { 'X-Quoine-Auth': jwtFor('/orders'), 'X-Service-Auth': jwtFor('/orders') },
    });
    expect(answer).toMatchObject({
      status: 400,
      body: { errors: { 'x-quoine-auth': ['differs_from_x-service-auth'] } },
    });
  });

  it('takes X-Quoine-API-Version as X-Service-API-Version, refusing the two disagreeing', async () => {
    const alone = await call({
      url: '/orders',
      headers: { 'X-Quoine-API-Version': '2', 'X-Quoine-Auth': jwtFor('/orders') },
    });
    expect(alone.status).toBe(200);
    const disagreeing = await call({
      url: '/orders',
      headers: {
        'X-Quoine-API-Version': '1',
        'X-Service-API-Version': '2',
        'X-Service-Auth': jwtFor('/orders'),
      },
    });
    expect(disagreeing).toMatchObject({
      status: 400,
      body: { errors: { 'x-quoine-api-version': ['differs_from_x-service-api-version'] } },
    });
  });

  it('lets a browser send them (CORS preflight)', async () => {
    const answer = await call({
      method: 'OPTIONS',
      url: '/orders',
      headers: {
        origin: 'https://bot.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-quoine-auth,x-quoine-api-version',
      },
    });
    expect(answer.status).toBe(204);
    const allowed = String(answer.headers['access-control-allow-headers']).split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['x-quoine-auth', 'x-quoine-api-version']));
  });
});

describe('a trailing slash', () => {
  it('routes POST /orders/ to POST /orders, the JWT signing /orders/ as sent', async () => {
    const placed = await call({
      method: 'POST',
      url: '/orders/',
      headers: { 'X-Service-Auth': jwtFor('/orders/') },
      body: limitBuy('9000000'),
    });
    expect(placed).toMatchObject({ status: 200, body: { status: 'live', price: '9000000' } });
  });

  it('refuses at /orders/ a JWT signed for /orders', async () => {
    const answer = await call({
      method: 'POST',
      url: '/orders/',
      headers: { 'X-Service-Auth': jwtFor('/orders') },
      body: limitBuy('9000000'),
    });
    expect(answer).toMatchObject({ status: 401, body: 'Path does not match' });
  });

  it('keeps the query of a path with a trailing slash, and serves public reads there', async () => {
    const url = '/orders/?status=live&product_id=1';
    const live = await call({ url, headers: { 'X-Service-Auth': jwtFor(url) } });
    expect(live.status).toBe(200);
    const statuses = (live.body as { models: { status: string }[] }).models.map((o) => o.status);
    expect(new Set(statuses)).toEqual(new Set(['live']));
    const product = await call({ url: '/products/1/' });
    expect(product).toMatchObject({ status: 200, body: { id: '1' } });
  });

  it('leaves partner paths as the partner interface writes them', async () => {
    const answer = await call({
      method: 'POST',
      url: '/api/v1/session/',
      body: { public_api_key: sandbox.credentials.publicApiKey },
    });
    expect(answer.status).toBe(404);
  });
});

describe('with_details=true and false', () => {
  it('reads as with_details=1 (0 for false) on an order, the order list and executions/me, signed as sent', async () => {
    const placed = await call({
      method: 'POST',
      url: '/orders',
      headers: { 'X-Service-Auth': jwtFor('/orders') },
      body: limitBuy('9500001'),
    });
    expect(placed.status).toBe(200);
    const orderId = (placed.body as { id: number }).id;

    const orderUrl = `/orders/${orderId}?with_details=true`;
    const order = await call({ url: orderUrl, headers: { 'X-Service-Auth': jwtFor(orderUrl) } });
    expect(order.status).toBe(200);
    expect((order.body as { executions: unknown[] }).executions).toHaveLength(1);

    const fillsUrl = '/executions/me?product_id=1&with_details=true';
    const fills = await call({ url: fillsUrl, headers: { 'X-Service-Auth': jwtFor(fillsUrl) } });
    expect(fills.status).toBe(200);
    expect((fills.body as { models: unknown[] }).models[0]).toMatchObject({ order_id: orderId });

    const listUrl = '/orders?product_id=1&status=filled&with_details=true';
    const list = await call({ url: listUrl, headers: { 'X-Service-Auth': jwtFor(listUrl) } });
    expect(list.status).toBe(200);
    const listed = (list.body as { models: { id: number; executions?: unknown[] }[] }).models;
    expect(listed.find((model) => model.id === orderId)?.executions).toHaveLength(1);

    const plainUrl = `/orders/${orderId}?with_details=false`;
    const plain = await call({ url: plainUrl, headers: { 'X-Service-Auth': jwtFor(plainUrl) } });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('executions');
  });

  it('still refuses any other value with 400, naming the field, on a list and on one order', async () => {
    for (const value of ['yes', 'TRUE', 'constructor', 'toString', '2']) {
      for (const path of [
        '/executions/me?product_id=1&',
        '/orders?',
        '/orders/1?',
        '/orders/client:abc?',
      ]) {
        const url = `${path}with_details=${value}`;
        const answer = await call({ url, headers: { 'X-Service-Auth': jwtFor(url) } });
        expect(answer.status, url).toBe(400);
        expect(answer.body).toMatchObject({ errors: { with_details: expect.any(Array) } });
      }
    }
  });
});
