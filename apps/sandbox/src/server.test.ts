import exchangeSpec from '@exchange-kit/contract/exchange/openapi.json' with { type: 'json' };
import {
  zCreateOrderResponse,
  zGetLoanBookResponse,
  zGetPriceLevelsResponse,
  zGetProductResponse,
  zListCurrenciesResponse,
  zListOrdersResponse,
  zListProductsResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, type NewUser } from './seeding.js';
import type { RunningSandbox } from './server.js';
import {
  type Client,
  demoClient,
  runCommandLine,
  send,
  startTestSandbox,
  valid,
} from './test-support.js';

let sandbox: RunningSandbox;
let call: Client;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  call = demoClient(sandbox);
});
afterAll(() => sandbox.close());

async function orderCount(): Promise<number> {
  const { rows } = await sandbox.database.transaction((tx) =>
    tx.query<{ n: number }>('SELECT count(*)::int AS n FROM orders'),
  );
  return rows[0]?.n ?? -1;
}

describe('sandbox server', () => {
  it('listens on loopback only', () => {
    expect(sandbox.exchangeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('says in one line why it cannot start, and exits with 1', () => {
    const port = new URL(sandbox.exchangeUrl).port;
    const result = runCommandLine(['--port', port]);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^exchange-sandbox: listen EADDRINUSE: .*:\d+$/),
    ]);
  });

  it('serves the bundled exchange spec it implements', async () => {
    const response = await fetch(`${sandbox.exchangeUrl}/openapi/exchange.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as typeof exchangeSpec;
    expect(Object.keys(body.paths)).toEqual(Object.keys(exchangeSpec.paths));
  });

  it('answers an unknown route with a 404 in the message error shape', async () => {
    const response = await fetch(`${sandbox.exchangeUrl}/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'No route for GET /nowhere' });
  });

  it('answers HEAD wherever it answers GET: the same status and headers, and no body', async () => {
    for (const path of ['/products', '/products/1', '/orders', '/nowhere']) {
      const get = await fetch(`${sandbox.exchangeUrl}${path}`);
      const getBody = await get.text();
      const head = await fetch(`${sandbox.exchangeUrl}${path}`, { method: 'HEAD' });
      expect([path, head.status]).toEqual([path, get.status]);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(await head.text()).toBe('');
      if (get.status === 200) {
        expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(getBody));
      }
    }
  });

  it('answers a method a path does not take with 405 and Allow, in the shape of its interface', async () => {
    const answer = async (base: string, method: string, path: string) => {
      const response = await fetch(`${base}${path}`, { method });
      const text = await response.text();
      return [response.status, response.headers.get('allow'), text ? JSON.parse(text) : text];
    };
    expect(await answer(sandbox.exchangeUrl, 'DELETE', '/orders')).toEqual([
      405,
      'GET, HEAD, POST',
      { message: 'DELETE is not allowed on /orders: it takes GET, HEAD, POST' },
    ]);
    // A HEAD carries no body, only the status and Allow.
    expect(await answer(sandbox.partnerUrl, 'HEAD', '/api/v1/session')).toEqual([405, 'POST', '']);
    expect(await answer(sandbox.exchangeUrl, 'POST', '/openapi/partner.json')).toEqual([
      405,
      'GET, HEAD',
      { message: 'POST is not allowed on /openapi/partner.json: it takes GET, HEAD' },
    ]);
    expect(await answer(sandbox.partnerUrl, 'GET', '/api/v1/session')).toEqual([
      405,
      'POST',
      { success: false, message: 'GET is not allowed on /api/v1/session: it takes POST' },
    ]);
    expect(await answer(sandbox.partnerUrl, 'GET', '/api/v1/nowhere')).toEqual([
      404,
      null,
      { success: false, message: 'No route for GET /api/v1/nowhere' },
    ]);
  });
});

describe('products, currencies, order books and loan books', () => {
  it('lists the seeded spot pairs, one of them margin-enabled', async () => {
    const products = valid(
      zListProductsResponse,
      await call('GET', '/products', { anonymous: true }),
    );
    expect(products.map((product) => product.currency_pair_code)).toContain('BTCJPY');
    expect(products.some((product) => product.margin_enabled)).toBe(true);
    expect(products.every((product) => !product.perpetual_enabled)).toBe(true);
  });

  it('lists the perpetual products with perpetual=1', async () => {
    const products = valid(
      zListProductsResponse,
      await call('GET', '/products?perpetual=1', { anonymous: true }),
    );
    expect(products.length).toBeGreaterThan(0);
    expect(products.every((product) => product.perpetual_enabled)).toBe(true);
  });

  it('refuses a perpetual flag that is not 0 or 1 with 400 naming it and both values', async () => {
    for (const flag of ['yes', 'abc', '2']) {
      const answer = await call('GET', `/products?perpetual=${flag}`, { anonymous: true });
      expect(answer.status, flag).toBe(400);
      expect(answer.body, flag).toEqual({ errors: { perpetual: ['must_be_one_of:0,1'] } });
    }
  });

  it('gets one product, and 404 for an unknown one', async () => {
    const product = valid(
      zGetProductResponse,
      await call('GET', '/products/1', { anonymous: true }),
    );
    expect(product).toMatchObject({ id: '1', base_currency: 'BTC', quoted_currency: 'JPY' });
    expect((await call('GET', '/products/999', { anonymous: true })).status).toBe(404);
    expect((await call('GET', '/products/abc', { anonymous: true })).status).toBe(404);
  });

  it('lists the currencies', async () => {
    const currencies = valid(
      zListCurrenciesResponse,
      await call('GET', '/currencies', { anonymous: true }),
    );
    expect(currencies.map((currency) => currency.currency)).toEqual(
      expect.arrayContaining(['BTC', 'JPY']),
    );
  });

  it('builds the order book from the live orders, best price first', async () => {
    const book = valid(
      zGetPriceLevelsResponse,
      await call('GET', '/products/1/price_levels', { anonymous: true }),
    );
    const prices = (levels: (string | number)[][]) => levels.map((level) => Number(level[0]));
    const bids = prices(book.buy_price_levels);
    const asks = prices(book.sell_price_levels);
    expect(bids).toEqual([...bids].sort((a, b) => b - a));
    expect(asks).toEqual([...asks].sort((a, b) => a - b));
    expect(Math.max(...bids)).toBeLessThan(Math.min(...asks));
    expect((await call('GET', '/products/999/price_levels', { anonymous: true })).status).toBe(404);
  });

  it('returns the loan book ladder with ascending rates; codes are case sensitive', async () => {
    const ladder = valid(
      zGetLoanBookResponse,
      await call('GET', '/ir_ladders/BTC', { anonymous: true }),
    );
    const rates = ladder.bids.map((bid) => Number(bid[0]));
    expect(rates.length).toBeGreaterThan(1);
    expect(rates).toEqual([...rates].sort((a, b) => a - b));
    expect((await call('GET', '/ir_ladders/btc', { anonymous: true })).status).toBe(404);
    expect((await call('GET', '/ir_ladders/NOPE', { anonymous: true })).status).toBe(404);
  });
});

const limitBuy = {
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: '0.01',
  price: '9000000',
};

describe('request validation', () => {
  const cases: [string, string | undefined, unknown, string][] = [
    ['a wrong type', undefined, { ...limitBuy, quantity: 0.01 }, 'quantity'],
    ['an unknown enum value', undefined, { ...limitBuy, side: 'hold' }, 'side'],
    ['a non-decimal quantity', undefined, { ...limitBuy, quantity: '1e3' }, 'quantity'],
    ['a negative quantity', undefined, { ...limitBuy, quantity: '-1' }, 'quantity'],
    ['a zero price', undefined, { ...limitBuy, price: '0' }, 'price'],
    ['a missing required field', undefined, { ...limitBuy, side: undefined }, 'side'],
    [
      'an oversize client_order_id',
      undefined,
      { ...limitBuy, client_order_id: 'x'.repeat(37) },
      'client_order_id',
    ],
    [
      'a client_order_id over 36 bytes',
      undefined,
      { ...limitBuy, client_order_id: 'é'.repeat(20) },
      'client_order_id',
    ],
    ['an unknown product', undefined, { ...limitBuy, product_id: 424242 }, 'product_id'],
    ['a limit order without price', undefined, { ...limitBuy, price: undefined }, 'price'],
    [
      'a quantity below the order size',
      undefined,
      { ...limitBuy, quantity: '0.00000001' },
      'quantity',
    ],
    ['a NUL character', undefined, { ...limitBuy, client_order_id: 'a\u0000b' }, 'client_order_id'],
    [
      'a leverage beyond any product',
      undefined,
      { ...limitBuy, trading_type: 'margin', leverage_level: 2 ** 40 },
      'leverage_level',
    ],
    [
      'a wrapped body with a bad field',
      undefined,
      { order: { ...limitBuy, quantity: 'abc' } },
      'order.quantity',
    ],
  ];

  it.each(cases)(
    'refuses %s with 422 naming the field, and creates nothing',
    async (_, __, body, field) => {
      const before = await orderCount();
      const answer = await call('POST', '/orders', { body });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ errors: { [field]: [expect.any(String)] } });
      expect(await orderCount()).toBe(before);
    },
  );

  it('names the reason: must_be_positive for a negative quantity', async () => {
    const answer = await call('POST', '/orders', { body: { ...limitBuy, quantity: '-1' } });
    expect(answer.body).toEqual({ errors: { quantity: ['must_be_positive'] } });
  });

  it('refuses malformed JSON with 400 and creates nothing', async () => {
    const before = await orderCount();
    const answer = await call('POST', '/orders', { rawBody: '{"order_type": "limit",' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ message: 'Malformed JSON body' });
    expect(await orderCount()).toBe(before);
  });

  it('refuses a body that is not an object', async () => {
    const answer = await call('POST', '/orders', { body: [1, 2] });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: { body: [expect.any(String)] } });
  });

  it('refuses a missing body where one is required', async () => {
    const answer = await call('POST', '/orders');
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: { body: ['required'] } });
  });

  it('refuses bad query parameters with 400 naming them', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=x', 'page=0', 'status=open']) {
      const answer = await call('GET', `/orders?${query}`);
      expect(answer.status, query).toBe(400);
      const field = query.split('=')[0] as string;
      expect(answer.body).toEqual({ errors: { [field]: [expect.any(String)] } });
    }
  });

  it('pages orders as the query schema defaults them: 20 a page, from page 1', async () => {
    for (let n = 0; n < 21; n++) {
      const placed = await call('POST', '/orders', {
        body: { ...limitBuy, quantity: '0.0001', price: '1000' },
      });
      expect(placed.status).toBe(200);
    }
    const listed = valid(zListOrdersResponse, await call('GET', '/orders'));
    expect(listed.models).toHaveLength(20);
    expect(listed.current_page).toBe(1);
    expect(listed.total_pages).toBeGreaterThan(1);
  });

  it('answers 404 for unknown order ids in either form', async () => {
    for (const path of ['/orders/999999999', '/orders/abc', '/orders/client:nope']) {
      const answer = await call('GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).toEqual({ message: 'Order not found' });
    }
  });
});

describe('authentication', () => {
  // Hand-made JWTs pick their own nonces, so they sign as a user of their own and leave the
  // demo token's nonce sequence to the client.
  let user: NewUser;
  beforeAll(async () => {
    user = await sandbox.sequencer.run((journal) => addUser(journal, { now: Date.now() }));
  });
  const secretKey = () => new TextEncoder().encode(user.tokenSecret);
  const payload = (path: string, nonce = Date.now() * 1000) => ({
    token_id: user.tokenId,
    path,
    nonce,
  });

  async function withJwt(jwt: string, path = '/orders', method = 'GET', body?: unknown) {
    return send(
      sandbox.exchangeUrl,
      method,
      path,
      { 'X-Service-Auth': jwt, 'content-type': 'application/json' },
      body === undefined ? undefined : JSON.stringify(body),
    );
  }

  async function refusedWithoutChange(
    answer: Promise<{ status: number; body: unknown }>,
    text: string,
  ) {
    const before = await orderCount();
    const result = await answer;
    expect(result.status).toBe(401);
    expect(result.body).toBe(text);
    expect(await orderCount()).toBe(before);
  }

  it('accepts an HS256 JWT of the demo token', async () => {
    valid(zListOrdersResponse, await call('GET', '/orders'));
  });

  it('refuses a missing header', async () => {
    await refusedWithoutChange(
      call('POST', '/orders', { body: limitBuy, anonymous: true }),
      'API Authentication failed',
    );
  });

  it('refuses a bad signature', async () => {
    const jwt = await new SignJWT(payload('/orders'))
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('not the secret'));
    await refusedWithoutChange(
      withJwt(jwt, '/orders', 'POST', limitBuy),
      'API Authentication failed',
    );
  });

  it('refuses alg none', async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const jwt = `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload('/orders'))}.`;
    await refusedWithoutChange(
      withJwt(jwt, '/orders', 'POST', limitBuy),
      'API Authentication failed',
    );
  });

  it('refuses HS512 even with the right secret', async () => {
    const jwt = await new SignJWT(payload('/orders'))
      .setProtectedHeader({ alg: 'HS512' })
      .sign(secretKey());
    await refusedWithoutChange(
      withJwt(jwt, '/orders', 'POST', limitBuy),
      'API Authentication failed',
    );
  });

  it('refuses an unknown token', async () => {
    const jwt = await new SignJWT({ ...payload('/orders'), token_id: 'nobody' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(secretKey());
    await refusedWithoutChange(withJwt(jwt), 'API Authentication failed');
  });

  it('refuses token ids and OAuth ids no token or request can have', async () => {
    for (const claims of [
      { token_id: 'a\u0000b' },
      { token_id: '' },
      { oauth_request_public_id: 'x\u0000', oauth_request_private_id: 'y' },
    ]) {
      const jwt = await new SignJWT({ ...payload('/orders'), ...claims })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(secretKey());
      await refusedWithoutChange(withJwt(jwt), 'API Authentication failed');
    }
  });

  it('refuses a replayed nonce and a smaller one', async () => {
    const nonce = Date.now() * 1000 + 5_000_000;
    const jwt = await new SignJWT(payload('/orders', nonce))
      .setProtectedHeader({ alg: 'HS256' })
      .sign(secretKey());
    expect((await withJwt(jwt)).status).toBe(200);
    await refusedWithoutChange(withJwt(jwt, '/orders', 'POST', limitBuy), 'Nonce is too small');
    await refusedWithoutChange(withJwt(jwt), 'Nonce is too small');
    const smaller = await new SignJWT(payload('/orders', nonce - 1))
      .setProtectedHeader({ alg: 'HS256' })
      .sign(secretKey());
    await refusedWithoutChange(withJwt(smaller), 'Nonce is too small');
  });

  it('accepts the nonce as a numeric string', async () => {
    const jwt = await new SignJWT({
      ...payload('/orders'),
      nonce: String(Date.now() * 1000 + 9_000_000),
    })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(secretKey());
    expect((await withJwt(jwt)).status).toBe(200);
  });

  it('refuses a path mismatch, the query string included', async () => {
    await refusedWithoutChange(
      call('POST', '/orders', { body: limitBuy, signPath: '/accounts' }),
      'Path does not match',
    );
    await refusedWithoutChange(
      call('GET', '/orders?status=live', { signPath: '/orders' }),
      'Path does not match',
    );
    valid(zListOrdersResponse, await call('GET', '/orders?status=live'));
  });

  it('refuses a missing nonce except on POST /orders with a client_order_id', async () => {
    const unsigned = (path: string, jti = 'first') =>
      new SignJWT({ token_id: user.tokenId, path, iat: Math.floor(Date.now() / 1000), jti })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(secretKey());
    await refusedWithoutChange(
      withJwt(await unsigned('/orders'), '/orders', 'POST', limitBuy),
      'API Authentication failed',
    );
    const body = { ...limitBuy, client_order_id: 'no-nonce-1' };
    const jwt = await unsigned('/orders');
    valid(zCreateOrderResponse, await withJwt(jwt, '/orders', 'POST', body));
    // Another JWT for the same body: the client_order_id is what must not repeat.
    const again = await withJwt(await unsigned('/orders', 'second'), '/orders', 'POST', body);
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ errors: { client_order_id: ['already_used'] } });
    // The same JWT again, with any body: it placed its one order.
    const other = { ...limitBuy, client_order_id: 'no-nonce-2' };
    await refusedWithoutChange(
      withJwt(jwt, '/orders', 'POST', other),
      'Token already used: a token without nonce places one order (sign each with its own jti, or with a nonce)',
    );
  });

  it('ignores unknown headers and the optional API version header', async () => {
    valid(
      zListOrdersResponse,
      await call('GET', '/orders', {
        headers: { 'X-Service-API-Version': '2', 'X-Whatever': '1' },
      }),
    );
  });

  it('never echoes the token secret', async () => {
    const answers = [
      await call('GET', '/orders'),
      await call('POST', '/orders', { body: { bad: 1 } }),
    ];
    for (const answer of answers) {
      expect(JSON.stringify(answer.body)).not.toContain(sandbox.credentials.tokenSecret);
    }
  });
});
