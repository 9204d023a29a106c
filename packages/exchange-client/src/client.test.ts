import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import spec from '@exchange-kit/contract/exchange/openapi.json' with { type: 'json' };
import {
  type JsonReply,
  jsonReply,
  scriptedFetch,
} from '@exchange-kit/test-support/scripted-fetch';
import { Decimal } from 'decimal.js';
import { decodeJwt, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createExchangeClient } from './client.js';
import {
  AuthenticationError,
  InvalidDecimalError,
  NotFoundError,
  OrderNotLiveError,
  RateLimitedError,
  ResponseValidationError,
  ValidationError,
} from './index.js';

const tokenSecret = 'demo-token-secret';
const baseUrl = 'http://127.0.0.1:4000';
// The spec's own example of a cancelled order, so the fixture cannot drift from the contract.
const order = spec.components.responses.CancelledOrder.content['application/json'].example;

/** A client whose fetch records each request and answers from a list, the way a server would. */
function server(...replies: JsonReply[]) {
  const { fetch, sent: requests } = scriptedFetch(replies.map(jsonReply));
  const client = createExchangeClient({
    baseUrl,
    tokenId: 'demo-token',
    tokenSecret,
    fetch,
    retry: false,
  });
  return { client, requests, fetch };
}

const jwtOf = (request: Request) => request.headers.get('X-Service-Auth') ?? '';

describe('orders', () => {
  it('cancels by client order id through the client: path, percent-encoded and signed exactly', async () => {
    const { client, requests } = server({ body: order });
    const cancelled = await client.orders.cancel({ clientOrderId: 'my order/2' });
    expect(cancelled.status).toBe('cancelled');
    const { request } = requests[0] ?? {};
    expect(request?.method).toBe('PUT');
    expect(request?.url).toBe(`${baseUrl}/orders/client:my%20order%2F2/cancel`);
    const { payload } = await jwtVerify(
      jwtOf(request as Request),
      new TextEncoder().encode(tokenSecret),
      {
        algorithms: ['HS256'],
      },
    );
    expect(payload).toMatchObject({
      token_id: 'demo-token',
      path: '/orders/client:my%20order%2F2/cancel',
    });
  });

  it('hands every decimal back as one exact string, whatever the server sent', async () => {
    const text = JSON.stringify({
      ...order,
      quantity: 0.5,
      filled_quantity: '0.50',
      order_fee: 0,
    }).replace('"price":"9600000.0"', '"price":123456789012345678901.123456789');
    const { client } = server({ body: text });
    const cancelled = await client.orders.cancel({ id: 2157480 });
    expect(cancelled).toMatchObject({
      price: '123456789012345678901.123456789',
      quantity: '0.5',
      filled_quantity: '0.5',
      order_fee: '0',
      take_profit: '10000000',
      stop_loss: '9000000',
      id: 2157480,
      created_at: 1716000200,
    });
  });

  it('sends decimals given as numbers, strings or Decimals as canonical strings', async () => {
    const { client, requests } = server({ body: { ...order, status: 'live' } });
    await client.orders.create({
      order_type: 'limit',
      product_id: 1,
      side: 'buy',
      quantity: 0.1,
      price: new Decimal('5000.500'),
    });
    expect(JSON.parse(requests[0]?.body ?? '')).toEqual({
      order_type: 'limit',
      product_id: 1,
      side: 'buy',
      quantity: '0.1',
      price: '5000.5',
    });
  });

  it('refuses NaN before sending anything, naming the field', async () => {
    const { client, requests } = server();
    const error = await client.orders
      .edit({ id: 1 }, { price: Number.NaN })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidDecimalError);
    expect(error).toMatchObject({ field: 'price', message: 'price: NaN is not a finite number' });
    expect(requests).toHaveLength(0);
  });

  it('turns a 404 on cancel into OrderNotLiveError and a 404 on get into NotFoundError', async () => {
    const { client } = server(
      { status: 404, body: { message: 'Order not found' } },
      { status: 404, body: { message: 'Order not found' } },
    );
    const notLive = await client.orders.cancel({ id: 9 }).catch((e: unknown) => e);
    expect(notLive).toBeInstanceOf(OrderNotLiveError);
    expect(notLive).toMatchObject({
      status: 404,
      message: 'PUT /orders/9/cancel: the order is not live (Order not found)',
    });
    const missing = await client.orders.get({ id: 9 }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).not.toBeInstanceOf(OrderNotLiveError);
  });

  it('refuses an order named another way than { id } or { clientOrderId }, sending nothing', async () => {
    const { client, requests } = server({ body: {} });
    const named = [9, { client_order_id: 'a' }, {}, { id: '' }, { clientOrderId: '' }];
    for (const ref of named) {
      const refused = await client.orders
        .cancel(ref as unknown as { id: number })
        .catch((e: unknown) => e);
      expect(refused, JSON.stringify(ref)).toBeInstanceOf(TypeError);
      expect(String(refused)).toMatch(/\{ id \} or \{ clientOrderId \}|path parameter/);
    }
    expect(requests).toHaveLength(0);
  });

  it('refuses per-call options passed where the query goes, as plain JavaScript can, sending nothing', async () => {
    const { client, requests } = server({ body: [] });
    const signal = AbortSignal.timeout(1_000);
    const asQuery = [
      () => client.orders.list({ signal } as never),
      () => client.products.list({ signal } as never),
      () => client.products.list({ perpetual: true, timeoutMs: 5 } as never),
    ];
    for (const call of asQuery) {
      await expect(call()).rejects.toThrow(
        /unknown query parameter (signal|timeoutMs) .*last argument/,
      );
    }
    await expect(client.currencies.list({ timeout: 5 } as never)).rejects.toThrow(
      'listCurrencies: unknown option timeout',
    );
    expect(requests).toHaveLength(0);
    await client.products.list({ perpetual: true }, { signal });
    expect(new URL(requests[0]?.request.url ?? '').search).toBe('?perpetual=1');
  });

  it('pages through every order, page numbers given as strings or numbers', async () => {
    const { client, requests } = server(
      {
        body: {
          models: [
            { ...order, id: 1 },
            { ...order, id: 2 },
          ],
          current_page: '1',
          total_pages: '2',
        },
      },
      { body: { models: [{ ...order, id: 3 }], current_page: 2, total_pages: 2 } },
    );
    const ids: Array<number | string> = [];
    for await (const each of client.orders.iterate({ status: 'live', limit: 2 })) ids.push(each.id);
    expect(ids).toEqual([1, 2, 3]);
    expect(requests.map((r) => new URL(r.request.url).search)).toEqual([
      '?status=live&limit=2&page=1',
      '?status=live&limit=2&page=2',
    ]);
    expect(requests.map((r) => decodeJwt(jwtOf(r.request)).path)).toEqual([
      '/orders?status=live&limit=2&page=1',
      '/orders?status=live&limit=2&page=2',
    ]);
  });

  it('lists exactly the orders cancel_all moved', async () => {
    const models = [
      { id: 1, client_order_id: null },
      { id: 2, client_order_id: 'a' },
    ];
    const { client, requests } = server({ body: { models } });
    expect(await client.orders.cancelAll({ side: 'buy', product_id: '1' })).toEqual(models);
    expect(JSON.parse(requests[0]?.body ?? '')).toEqual({ side: 'buy', product_id: '1' });
  });
});

describe('typed errors', () => {
  it('reads a plain-text 401 and never puts a secret or the JWT in the message', async () => {
    const { client, requests } = server({
      status: 401,
      body: 'Nonce is too small',
      type: 'text/plain',
    });
    const error = await client.currencies.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).message).toBe(
      'GET /currencies: authentication failed (Nonce is too small)',
    );
    const everything =
      JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).stack);
    expect(everything).not.toContain(tokenSecret);
    expect(everything).not.toContain(jwtOf(requests[0]?.request as Request));
  });

  it('gives the fields of a 422 in either error shape', async () => {
    const { client } = server(
      {
        status: 422,
        body: { errors: { quantity: ['must_be_positive'], user: ['not_enough_free_balance'] } },
      },
      { status: 422, body: { message: 'Can not update non-live order' } },
    );
    const fields = await client.orders
      .create({ order_type: 'limit', product_id: 1, side: 'buy', quantity: '1', price: '1' })
      .catch((e: unknown) => e);
    expect(fields).toBeInstanceOf(ValidationError);
    expect(fields).toMatchObject({
      status: 422,
      fields: { quantity: ['must_be_positive'], user: ['not_enough_free_balance'] },
    });
    const message = await client.orders.edit({ id: 1 }, { quantity: '2' }).catch((e: unknown) => e);
    expect(message).toMatchObject({
      status: 422,
      fields: {},
      message: expect.stringContaining('Can not update non-live order'),
    });
  });

  it('tells the caller how long a rate limit asks to wait', async () => {
    const { client } = server({
      status: 429,
      body: { message: 'API rate limit exceeded. Please retry after 300s' },
    });
    const error = await client.products.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ status: 429, retryAfter: 300 });
  });

  it('reports a response that does not match the spec with the pointer of each difference', async () => {
    const { client } = server({ body: { ...order, side: 'sideways', created_at: 'yesterday' } });
    const error = await client.orders.get({ id: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((i) => i.pointer).sort()).toEqual([
      '/created_at',
      '/side',
    ]);
    // Real zod schemas of the contract: the message says what was documented and what came.
    expect((error as Error).message).toContain(
      '/side: expected one of ["buy","sell"], received "sideways"',
    );
    expect((error as Error).message).toContain(
      '/created_at: expected number, received "yesterday"',
    );
  });

  it('lets validation be switched off, still normalising decimals', async () => {
    const { fetch } = server({ body: { ...order, side: 'sideways', quantity: 2 } });
    const client = createExchangeClient({
      baseUrl,
      tokenId: 't',
      tokenSecret,
      fetch,
      validateResponses: false,
    });
    expect(await client.orders.get({ id: 1 })).toMatchObject({ side: 'sideways', quantity: '2' });
  });
});

describe('forUser', () => {
  it('signs user calls with both OAuth request ids', async () => {
    const { client, requests } = server({
      body: spec.paths['/accounts'].get.responses['200'].content['application/json'].example,
    });
    const oauth = {
      publicId: '0f8fad5b-d9cb-469f-a165-70867728950e',
      privateId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    };
    await client.forUser(oauth).accounts();
    expect(decodeJwt(jwtOf(requests[0]?.request as Request))).toMatchObject({
      path: '/accounts',
      oauth_request_public_id: oauth.publicId,
      oauth_request_private_id: oauth.privateId,
    });
  });
});

describe('transport', () => {
  it('sends through node:http on Node, and through the fetch given when there is one', async () => {
    const received: IncomingHttpHeaders[] = [];
    const local = createServer((request, response) => {
      received.push(request.headers);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(order));
    });
    local.listen(0, '127.0.0.1');
    await once(local, 'listening');
    const localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
    try {
      const options = { baseUrl: localUrl, tokenId: 't', tokenSecret };
      expect((await createExchangeClient(options).orders.get({ id: 1 })).price).toBe('9600000');
      const viaFetch = createExchangeClient({ ...options, fetch: (...args) => fetch(...args) });
      expect((await viaFetch.orders.get({ id: 1 })).price).toBe('9600000');
    } finally {
      local.closeAllConnections();
      local.close();
    }
    // Node's fetch marks its requests; node:http adds nothing of its own.
    expect(received.map((headers) => headers['sec-fetch-mode'])).toEqual([undefined, 'cors']);
    expect(received.every((headers) => typeof headers['x-service-auth'] === 'string')).toBe(true);
  });
});
