import { describe, expect, it } from 'vitest';
import { findOperation, operation } from './spec.js';
import { checkResponse } from './validate.js';

describe('response validation against the bundled specs', () => {
  it('locates each violation by JSON pointer, with the schema path', () => {
    const { violations } = checkResponse(
      operation('cancelAllOrders'),
      200,
      'application/json',
      '{"models":[{"id":"7"}]}',
    );
    expect(violations).toEqual([
      {
        pointer: '/models/0/client_order_id',
        message: 'required property is missing',
        specPath: '#/components/schemas/CancelledOrderEntry/required',
      },
      {
        pointer: '/models/0/id',
        message: 'must be integer',
        specPath: '#/components/schemas/CancelledOrderEntry/properties/id/type',
      },
    ]);
  });

  it('refuses an undocumented status and an undocumented content type', () => {
    expect(
      checkResponse(operation('cancelOrder'), 202, 'application/json', '{}').violations[0]?.message,
    ).toBe('status 202 is not documented for cancelOrder (documented: 200, 401, 403, 404, 429)');
    expect(
      checkResponse(operation('cancelOrder'), 404, 'text/html', '<p>no</p>').violations[0]?.message,
    ).toContain('content type "text/html" is not documented for status 404');
  });

  it('accepts a plain-text 401 and a documented error body', () => {
    expect(
      checkResponse(
        operation('cancelOrder'),
        401,
        'text/plain; charset=utf-8',
        'Nonce is too small',
      ).violations,
    ).toEqual([]);
    expect(
      checkResponse(
        operation('cancelOrder'),
        404,
        'application/json',
        '{"message":"Order not found"}',
      ).violations,
    ).toEqual([]);
  });

  it('finds the operation of a request, concrete paths and client ids first', () => {
    expect(findOperation('PUT', '/orders/cancel_all')?.operationId).toBe('cancelAllOrders');
    expect(findOperation('PUT', '/orders/client:abc/cancel')?.operationId).toBe(
      'cancelOrderByClientId',
    );
    expect(findOperation('PUT', '/orders/client:abc')?.operationId).toBe('editOrderByClientId');
    expect(findOperation('PUT', '/orders/12')?.operationId).toBe('editOrder');
  });
});
