import { jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createExchangeClient } from './client.js';
import { zOrder } from './schemas.js';

const tokenSecret = 'demo-token-secret';
const order = {
  id: 2157479,
  client_order_id: 'my order/1',
  order_type: 'limit',
  quantity: '0.01',
  disc_quantity: '0.0',
  iceberg_total_quantity: '0.0',
  side: 'sell',
  filled_quantity: '0.0',
  price: 500.0,
  average_price: 0,
  created_at: 1462123639,
  updated_at: 1462123639,
  status: 'cancelled',
  leverage_level: 1,
  source_exchange: 'QUOINE',
  product_id: 1,
  product_code: 'CASH',
  currency_pair_code: 'BTCUSD',
  funding_currency: 'USD',
  crypto_account_id: null,
  margin_type: null,
  take_profit: null,
  stop_loss: null,
  trading_type: 'spot',
  target: 'spot',
  order_fee: '0.0',
  source_action: 'manual',
  unwound_trade_id: null,
  trade_id: null,
};

/** A fetch that records each request and answers with `body`, the way a server would. */
function observedFetch(body: unknown) {
  const requests: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push(request);
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { fetch, requests };
}

describe('createExchangeClient', () => {
  it('percent-encodes a client order id in the client: path form and signs that exact path', async () => {
    const { fetch, requests } = observedFetch(order);
    const client = createExchangeClient({
      baseUrl: 'http://127.0.0.1:4000',
      tokenId: 'demo-token',
      tokenSecret,
      fetch,
    });
    const { data } = await client.raw.PUT('/orders/client:{client_order_id}/cancel', {
      params: { path: { client_order_id: 'my order/1' } },
    });
    expect(zOrder.parse(data).status).toBe('cancelled');
    const [request] = requests;
    expect(request?.method).toBe('PUT');
    expect(request?.url).toBe('http://127.0.0.1:4000/orders/client:my%20order%2F1/cancel');
    const jwt = request?.headers.get('X-Service-Auth') ?? '';
    const { payload } = await jwtVerify(jwt, new TextEncoder().encode(tokenSecret), {
      algorithms: ['HS256'],
    });
    expect(payload).toMatchObject({
      token_id: 'demo-token',
      path: '/orders/client:my%20order%2F1/cancel',
    });
  });

  it('signs the query string as part of the path, with a new nonce per call', async () => {
    const { fetch, requests } = observedFetch({ models: [], current_page: 1, total_pages: 1 });
    const client = createExchangeClient({
      baseUrl: 'http://127.0.0.1:4000',
      tokenId: 't',
      tokenSecret,
      fetch,
    });
    await client.raw.GET('/orders', { params: { query: { product_id: '1', status: 'live' } } });
    await client.raw.GET('/orders', { params: { query: { product_id: '1', status: 'live' } } });
    const payloads = await Promise.all(
      requests.map(async (r) => {
        const jwt = r.headers.get('X-Service-Auth') ?? '';
        return (await jwtVerify(jwt, new TextEncoder().encode(tokenSecret))).payload;
      }),
    );
    expect(payloads.map((p) => p.path)).toEqual([
      '/orders?product_id=1&status=live',
      '/orders?product_id=1&status=live',
    ]);
    expect(payloads[1]?.nonce as number).toBeGreaterThan(payloads[0]?.nonce as number);
  });
});
