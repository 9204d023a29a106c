import fc from 'fast-check';
import { createFinalURL, createQuerySerializer, defaultPathSerializer } from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { callTargets } from './call-target.js';

/** The target as a URL parser gives it: what fetch sends and what must be signed. */
function parsedTarget(baseUrl: string, template: string, params: Record<string, unknown>) {
  const url = new URL(
    createFinalURL(template, {
      baseUrl: baseUrl.replace(/\/$/, ''),
      params,
      querySerializer: createQuerySerializer(),
      pathSerializer: defaultPathSerializer,
    }),
  );
  return { url: url.href, path: url.pathname + url.search };
}

// Ids as a buggy or hostile caller may pass them: dots, quotes, slashes, unicode, spaces.
const value = fc.oneof(
  fc.constantFrom('.', '..', '...', "it's", '../x', 'a/b', '%2e%2e', '?', '#', ' ', 'é', '💱'),
  fc.string({ unit: 'grapheme', minLength: 1 }),
  fc.string({
    unit: fc.constantFrom('.', '/', "'", 'a', '%', '?', '#', '&', '=', '+'),
    minLength: 1,
  }),
  fc.integer(),
);
const bases = fc.constantFrom(
  'http://127.0.0.1:4000',
  'https://api.example.com/',
  'https://API.Example.com/v2/',
  'http://[::1]:8080/base',
  'https://user:pw@example.com/',
);

describe('the target of a call', () => {
  it('is, byte for byte, what a URL parser makes of the serialised path and query', () => {
    const templates = fc.constantFrom(
      '/orders/client:{client_order_id}',
      '/orders/{order_id}/edit',
      '/transactions/{id}/{client_order_id}',
      '/products',
    );
    const query = fc.record(
      { client_ref: value, page: fc.integer(), status: fc.constantFrom('live', undefined) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(bases, templates, value, value, fc.option(query), (base, path, id, ref, q) => {
        const params = {
          path: { client_order_id: id, order_id: ref, id: ref },
          ...(q === null ? {} : { query: q }),
        };
        const names = path.match(/\{(\w+)\}/g)?.map((name) => name.slice(1, -1)) ?? [];
        const values = names.map((name) => params.path[name as keyof typeof params.path]);
        if (values.some((given) => given === '.' || given === '..')) {
          // A URL parser would resolve the segment away: refused, not sent elsewhere.
          expect(() => callTargets(base)(path, params)).toThrow(TypeError);
        } else {
          expect(callTargets(base)(path, params)).toEqual(parsedTarget(base, path, params));
        }
      }),
      { numRuns: 5_000, seed: 15 },
    );
  });

  it.each(['.', '..'])('refuses %s as a path parameter, which a URL parser resolves away', (id) => {
    for (const base of ['https://api.example.com/v2', 'https://user:pw@example.com/']) {
      expect(() => callTargets(base)('/orders/{order_id}', { path: { order_id: id } })).toThrow(
        new TypeError(`/orders/{order_id}: path parameter order_id cannot be '${id}'`),
      );
    }
  });

  it("refuses values that spell another operation's own path, which the server routes first", () => {
    const targets = callTargets('http://127.0.0.1:4000', [
      '/orders/cancel_all',
      '/orders/{order_id}',
      '/trades/{trade_id}/close',
      '/trades/close_all',
    ]);
    expect(() => targets('/orders/{order_id}', { path: { order_id: 'cancel_all' } })).toThrow(
      new TypeError(
        "/orders/{order_id}: path parameter values spell /orders/cancel_all, another operation's path",
      ),
    );
    expect(() => targets('/orders/{order_id}', { path: { order_id: 'close_all' } })).not.toThrow();
    expect(targets('/trades/{trade_id}/close', { path: { trade_id: 7 } }).path).toBe(
      '/trades/7/close',
    );
  });

  it.each([
    ['missing', {}, 'undefined'],
    ['null', { order_id: null }, 'null'],
    ['empty', { order_id: '' }, 'an empty string'],
  ])('refuses a %s path parameter instead of sending its {name}', (_, path, got) => {
    for (const base of ['http://127.0.0.1:4000', 'https://user:pw@example.com/']) {
      expect(() => callTargets(base)('/orders/{order_id}/cancel', { path })).toThrow(
        new TypeError(`/orders/{order_id}/cancel: path parameter order_id is required, got ${got}`),
      );
    }
  });
});
