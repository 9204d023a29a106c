import { describe, expect, it } from 'vitest';
import exchangeSpec from './generated/exchange.openapi.json' with { type: 'json' };
import { type OpenApiDocument, operationsOf, resolveRef, routeMatcher } from './spec-reader.js';

const exchange = exchangeSpec as unknown as OpenApiDocument;

describe('resolveRef', () => {
  const document: OpenApiDocument = {
    paths: {},
    components: {
      schemas: {
        'a/b': { $ref: '#/components/schemas/Target' },
        Target: { type: 'string', description: 'the target' },
      },
    },
  };

  it('follows a chain, escaped names included, and lets siblings override', () => {
    expect(resolveRef(document, { $ref: '#/components/schemas/a~1b' })).toEqual({
      type: 'string',
      description: 'the target',
    });
    expect(
      resolveRef(document, { $ref: '#/components/schemas/Target', description: 'here' }),
    ).toEqual({ type: 'string', description: 'here' });
    expect(resolveRef(document, { type: 'integer' })).toEqual({ type: 'integer' });
  });

  it('says which reference names nothing', () => {
    expect(() => resolveRef(document, { $ref: '#/components/schemas/Gone' })).toThrow(
      '#/components/schemas/Gone names nothing',
    );
  });
});

describe('operationsOf', () => {
  it('lists every operation with its parameters resolved', () => {
    const operations = operationsOf(exchange);
    const cancel = operations.find((op) => op.operationId === 'cancelOrderByClientId');
    expect(cancel).toMatchObject({
      method: 'PUT',
      path: '/orders/client:{client_order_id}/cancel',
      pointer: '#/paths/~1orders~1client%3A%7Bclient_order_id%7D~1cancel/put',
    });
    expect(cancel?.parameters.map((p) => [p.name, p.in])).toEqual([
      ['X-Service-API-Version', 'header'],
      ['client_order_id', 'path'],
    ]);
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
  });
});

describe('routeMatcher', () => {
  const find = routeMatcher(operationsOf(exchange));
  const match = (method: string, path: string) => {
    const found = find(method, path);
    return found.kind === 'matched' ? [found.route.operationId, found.path] : found;
  };

  it('takes a literal segment before a prefixed parameter, and that before a bare one', () => {
    expect(match('PUT', '/orders/cancel_all')).toEqual(['cancelAllOrders', {}]);
    expect(match('PUT', '/orders/client:a%20b/cancel')).toEqual([
      'cancelOrderByClientId',
      { client_order_id: 'a b' },
    ]);
    expect(match('PUT', '/orders/12/cancel')).toEqual(['cancelOrder', { order_id: '12' }]);
  });

  it('finds nothing for another method, an empty parameter or a longer path', () => {
    expect(match('DELETE', '/orders/12/cancel')).toEqual({ kind: 'not-found' });
    expect(match('GET', '/orders/client:')).toEqual(['getOrder', { order_id: 'client:' }]);
    expect(match('GET', '/orders/12/cancel/now')).toEqual({ kind: 'not-found' });
  });

  it('names the parameter whose percent-encoding is broken', () => {
    expect(match('GET', '/orders/client:%E0%A4%A')).toEqual({
      kind: 'bad-encoding',
      parameter: 'client_order_id',
    });
  });
});
