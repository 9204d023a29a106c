import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { serviceAuthenticator } from '../auth/authenticate.js';
import {
  NotFoundError,
  OrderNotLiveError,
  ResponseValidationError,
  TransportError,
  ValidationError,
} from '../errors.js';
import { type ApiClientConfig, type ClientOperation, createApi } from './client.js';
import type { ResponseSchema } from './decode.js';
import { type Handler, loopbackServer } from './loopback.test-support.js';

// A small table in the shape codegen writes, with its types, so the tests need no spec.
interface Thing {
  id: string;
  price: string;
}
interface Operations {
  getThing: {
    parameters: { path: { thing_id: string }; query?: { q?: string; tags?: string[] } };
    responses: { 200: { content: { 'application/json': Thing } } };
  };
  editThing: {
    parameters: { path: { thing_id: string } };
    requestBody: { content: { 'application/json': { price: string } } };
    responses: { 200: { content: { 'application/json': Thing } } };
  };
}
interface Paths {
  '/things/{thing_id}': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: Operations['getThing'];
    put: Operations['editThing'];
  };
}
const operations: Record<keyof Operations, ClientOperation> = {
  getThing: {
    method: 'GET',
    path: '/things/{thing_id}',
    status: 200,
    response: 'zThing',
    decimals: { price: true },
    requestDecimals: null,
    query: ['q', 'tags'],
  },
  editThing: {
    method: 'PUT',
    path: '/things/{thing_id}',
    status: 200,
    response: 'zThing',
    decimals: { price: true },
    requestDecimals: { price: true },
    query: [],
  },
};
// Stands in for a zod schema, its issue as zod 4 words it: an id must be a string.
const zThing: ResponseSchema = {
  safeParse: (value) =>
    typeof (value as Thing).id === 'string'
      ? { success: true }
      : {
          success: false,
          error: {
            issues: [
              {
                code: 'invalid_type',
                expected: 'string',
                path: ['id'],
                message: 'expected string',
              },
            ],
          },
        },
};
let schemaLoads = 0;
const loadSchemas = async () => {
  schemaLoads++;
  return { zThing };
};

let handle: Handler;
const loopback = loopbackServer((request, body, response) => handle(request, body, response));
const { seen, arrived } = loopback;
const answer =
  (status: number, text: string, type = 'application/json'): Handler =>
  (_request, _body, response) => {
    response.writeHead(status, { 'content-type': type });
    response.end(text);
  };

const token = { tokenId: 'api-token', tokenSecret: 'api-secret' };
function api(config: Partial<ApiClientConfig> = {}) {
  return createApi<Paths, Operations>({
    baseUrl: loopback.origin,
    operations,
    loadSchemas,
    authenticate: serviceAuthenticator(token),
    retry: false,
    ...config,
  });
}
const signedPath = (index = 0) =>
  decodeJwt(seen[index]?.headers['x-service-auth'] as string).path as string;

describe('call', () => {
  it('refuses, before sending, a query parameter or an option the call does not take', async () => {
    handle = answer(200, '{"id":"t","price":"1"}');
    const call = api().call as (name: string, input?: object, options?: object) => Promise<unknown>;
    const thing = { thing_id: 't' };
    // As plain JavaScript would pass per-call options: where the query goes.
    await expect(
      call('getThing', { path: thing, query: { signal: AbortSignal.timeout(1_000) } }),
    ).rejects.toThrow(
      new TypeError(
        'getThing: unknown query parameter signal (it takes q, tags); per-call options go in the last argument',
      ),
    );
    await expect(call('getThing', { path: thing, query: { qq: 'x' } })).rejects.toThrow(
      'getThing: unknown query parameter qq (it takes q, tags)',
    );
    await expect(
      call('editThing', { path: thing, body: { price: '1' }, query: { q: 'x' } }),
    ).rejects.toThrow('editThing: unknown query parameter q (it takes none)');
    await expect(call('getThing', { path: thing }, { timeout: 5 })).rejects.toThrow(
      'getThing: unknown option timeout (a call takes signal, timeoutMs, retry)',
    );
    expect(seen).toHaveLength(0);
    // A key left undefined is no mistake: the serialiser leaves it out.
    await call(
      'getThing',
      { path: thing, query: { q: 'x', other: undefined } },
      { signal: undefined, extra: undefined },
    );
    expect(seen.map((request) => request.url)).toEqual(['/things/t?q=x']);
  });

  it('answers the decoded value: lossless, validated, decimals as canonical strings', async () => {
    handle = answer(200, '{"id":"t1","price":123456789012345678901.123456789}');
    const thing = await api().call('getThing', { path: { thing_id: 't1' } });
    expect(thing).toEqual({ id: 't1', price: '123456789012345678901.123456789' });
  });

  it('signs exactly the path and query that go on the wire, whatever the characters', async () => {
    handle = answer(200, '{"id":"t","price":"1"}');
    const { call } = api();
    await call('getThing', {
      path: { thing_id: "it's/a b" },
      query: { q: "o'clock é", tags: ['a', 'b'] },
    });
    await call('getThing', { path: { thing_id: 'x' }, query: { q: '[x]' } });
    // As fetch would send them: a quote in a query escaped.
    expect(seen.map((request) => request.url)).toEqual([
      "/things/it's%2Fa%20b?q=o%27clock%20%C3%A9&tags=a&tags=b",
      '/things/x?q=%5Bx%5D',
    ]);
    expect([signedPath(0), signedPath(1)]).toEqual(seen.map((request) => request.url));
  });

  it('sends nothing for an id that a URL parser would resolve to another path', async () => {
    handle = answer(200, '{"id":"t","price":"1"}');
    await expect(api().call('getThing', { path: { thing_id: '..' } })).rejects.toThrow(
      "path parameter thing_id cannot be '..'",
    );
    expect(seen).toEqual([]);
  });

  it('keeps the path of a base URL, signed with it', async () => {
    handle = answer(200, '{"id":"t","price":"1"}');
    await api({ baseUrl: `${loopback.origin}/api/v2/` }).call('getThing', {
      path: { thing_id: 't' },
    });
    expect(seen[0]?.url).toBe('/api/v2/things/t');
    expect(signedPath()).toBe('/api/v2/things/t');
  });

  it('sends the body as JSON with its decimals as canonical strings', async () => {
    handle = answer(200, '{"id":"t","price":"0.1"}');
    await api().call('editThing', {
      path: { thing_id: 't' },
      body: { price: 0.1 as unknown as string },
    });
    expect(seen[0]?.body).toBe('{"price":"0.1"}');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
  });

  it('throws the typed error of an error status, with the parsed body or the text', async () => {
    const { call } = api();
    handle = answer(422, '{"errors":{"price":["must_be_positive"]}}');
    const invalid = await call('getThing', { path: { thing_id: 't' } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({
      fields: { price: ['must_be_positive'] },
      request: { method: 'GET', path: '/things/t' },
    });
    handle = answer(404, 'gone', 'text/plain');
    const missing = await call('getThing', { path: { thing_id: 't' } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ body: 'gone', message: 'GET /things/t: not found (gone)' });
    const notLive = await call('editThing', {
      path: { thing_id: 't' },
      body: { price: '1' },
      notFound: 'order-not-live',
    }).catch((e: unknown) => e);
    expect(notLive).toBeInstanceOf(OrderNotLiveError);
  });

  it('refuses a success body that breaks the schema, or that is not JSON at all', async () => {
    const { call } = api();
    handle = answer(200, '{"id":1,"price":"1"}');
    const wrong = await call('getThing', { path: { thing_id: 't' } }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ResponseValidationError);
    expect((wrong as ResponseValidationError).issues).toEqual([
      { pointer: '/id', message: 'expected string', expected: 'string', received: '1' },
    ]);
    expect((wrong as Error).message).toBe(
      'GET /things/t: response 200 does not match the spec (/id: expected string, received 1)',
    );
    handle = answer(200, '<html>maintenance</html>', 'text/html');
    await expect(call('getThing', { path: { thing_id: 't' } })).rejects.toMatchObject({
      name: 'ResponseValidationError',
      issues: [
        {
          pointer: '',
          message: 'body is not valid JSON',
          expected: 'a JSON body',
          received: '"<html>maintenance</html>"',
        },
      ],
    });
    handle = answer(200, '{"id":"t","price":"cheap"}');
    await expect(call('getThing', { path: { thing_id: 't' } })).rejects.toThrow(
      '(/price: expected a decimal number, received "cheap")',
    );
  });

  it('says a missing field came as nothing, and never shows a secret field’s value', async () => {
    handle = answer(200, '{"price":"1"}');
    await expect(api().call('getThing', { path: { thing_id: 't' } })).rejects.toThrow(
      '(/id: expected string, received nothing)',
    );
    handle = answer(200, '{"id":{"secret":"s3cr3t"},"price":"1"}');
    const error = await api({ secretFields: ['id'] })
      .call('getThing', { path: { thing_id: 't' } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ issues: [{ pointer: '/id', received: '[redacted]' }] });
    expect(String(error)).not.toContain('s3cr3t');
  });

  it('loads the schemas once, and not at all when validation is off', async () => {
    handle = answer(200, '{"id":1,"price":2}');
    const before = schemaLoads;
    const { call } = api({ validateResponses: false });
    expect(await call('getThing', { path: { thing_id: 't' } })).toEqual({ id: 1, price: '2' });
    expect(schemaLoads).toBe(before);
    const validating = api();
    handle = answer(200, '{"id":"t","price":2}');
    await Promise.all(
      [1, 2, 3].map(() => validating.call('getThing', { path: { thing_id: 't' } })),
    );
    expect(schemaLoads).toBe(before + 1);
  });
});

describe('per-call options', () => {
  const busy = answer(503, '{"message":"busy"}');
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('stops a call on its signal with a TransportError that keeps the signal’s reason', async () => {
    handle = () => undefined;
    const caller = new AbortController();
    const pending = api().call('getThing', { path: { thing_id: 't' } }, { signal: caller.signal });
    await arrived(1);
    const reason = new Error('user left the page');
    caller.abort(reason);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ reason: 'aborted', cause: reason });
    expect(seen).toHaveLength(1);
  });

  it('sends nothing for a signal already aborted', async () => {
    handle = answer(200, '{"id":"t","price":"1"}');
    const error = await api()
      .call('getThing', { path: { thing_id: 't' } }, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TransportError', reason: 'aborted' });
    expect((error as TransportError).cause).toMatchObject({ name: 'AbortError' });
    await wait(20);
    expect(seen).toHaveLength(0);
  });

  it('retries nothing once aborted, though the client would retry a 503', async () => {
    handle = busy;
    const caller = new AbortController();
    const retrying = api({ retry: { baseDelayMs: 200 } });
    const pending = retrying.call(
      'getThing',
      { path: { thing_id: 't' } },
      { signal: caller.signal },
    );
    await arrived(1);
    await wait(20);
    // The first 503 is in, the backoff has started: the abort ends the wait and the call.
    expect(seen).toHaveLength(1);
    caller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'TransportError', reason: 'aborted' });
    await wait(300);
    expect(seen).toHaveLength(1);
  });

  it('times out a call by its own timeoutMs, whatever the client’s', async () => {
    handle = () => undefined;
    const started = performance.now();
    await expect(
      api({ timeoutMs: 30_000 }).call('getThing', { path: { thing_id: 't' } }, { timeoutMs: 40 }),
    ).rejects.toMatchObject({ name: 'TransportError', reason: 'timeout' });
    // Far below the client's 30 s, with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('turns retries off for one call, or on for one call of a client without them', async () => {
    handle = busy;
    const retrying = api({ retry: { baseDelayMs: 1 } });
    await expect(
      retrying.call('getThing', { path: { thing_id: 't' } }, { retry: false }),
    ).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);

    seen.length = 0;
    await expect(retrying.call('getThing', { path: { thing_id: 't' } })).rejects.toMatchObject({
      status: 503,
    });
    expect(seen).toHaveLength(3);

    seen.length = 0;
    await expect(
      api({ retry: false }).call(
        'getThing',
        { path: { thing_id: 't' } },
        { retry: { retries: 1, baseDelayMs: 1 } },
      ),
    ).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(2);
  });

  it('lays a call’s retry options over the client’s: a PUT not retried when the call says GET only', async () => {
    handle = busy;
    const retrying = api({ retry: { baseDelayMs: 1 } });
    const edit = { path: { thing_id: 't' }, body: { price: '1' } };
    await expect(retrying.call('editThing', edit)).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(3);
    seen.length = 0;
    await expect(
      retrying.call('editThing', edit, { retry: { methods: ['GET'] } }),
    ).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
  });
});

describe('raw', () => {
  it('goes through the same transport and decoding', async () => {
    handle = answer(200, '{"id":"t","price":1.50}');
    const { data, response } = await api().raw.GET('/things/{thing_id}', {
      params: { path: { thing_id: 't' }, query: { q: "it's" } },
    });
    expect(data).toEqual({ id: 't', price: '1.5' });
    expect(response.status).toBe(200);
    expect(signedPath()).toBe(seen[0]?.url);
    expect(seen[0]?.url).toBe('/things/t?q=it%27s');
  });

  it('hands error answers to openapi-fetch untouched', async () => {
    handle = answer(404, '{"message":"no such thing"}');
    const { error, response } = await api().raw.GET('/things/{thing_id}', {
      params: { path: { thing_id: 't' } },
    });
    expect(response.status).toBe(404);
    expect(error).toEqual({ message: 'no such thing' });
  });
});
