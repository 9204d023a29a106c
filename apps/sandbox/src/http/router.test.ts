import { describe, expect, it } from 'vitest';
import { depositHandlers } from '../exchange/deposits.js';
import { executionHandlers } from '../exchange/executions.js';
import { feeHandlers } from '../exchange/fee-reads.js';
import { ledgerHandlers } from '../exchange/ledger-reads.js';
import { marketHandlers } from '../exchange/market.js';
import { oauthHandlers } from '../exchange/oauth.js';
import { orderHandlers } from '../exchange/orders.js';
import { tradeHandlers } from '../exchange/trades.js';
import { userHandlers } from '../exchange/users.js';
import { withdrawalHandlers } from '../exchange/withdrawals.js';
import { partnerHandlers } from '../partner/handlers.js';
import { sandboxHandlers } from '../sandbox-handlers.js';
import { buildRoutes, findRoute } from './router.js';

const routes = buildRoutes();

function operation(method: string, path: string): string | undefined {
  const resolution = findRoute(routes, method, path);
  return resolution.kind === 'matched' ? resolution.match.route.operation.operationId : undefined;
}

describe('route table from the specs', () => {
  it('has one route per operation of both specs', () => {
    const ids = routes.map((route) => route.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining(['cancelAllOrders', 'createSession', 'getLoanBook']),
    );
  });

  it('has exactly one handler for every operation', () => {
    const groups = [
      marketHandlers,
      orderHandlers,
      executionHandlers,
      userHandlers,
      oauthHandlers('http://127.0.0.1:4000'),
      ledgerHandlers,
      withdrawalHandlers,
      depositHandlers,
      partnerHandlers,
      tradeHandlers,
      feeHandlers,
    ];
    const count = (id: string) =>
      groups.filter((handlers: Record<string, unknown>) => handlers[id]).length;
    const wrong = routes.filter((route) => count(route.operation.operationId) !== 1);
    expect(wrong.map((route) => route.operation.operationId)).toEqual([]);
    const handlers = sandboxHandlers('http://127.0.0.1:4000');
    expect(Object.keys(handlers).sort()).toEqual(
      routes.map((route) => route.operation.operationId).sort(),
    );
  });

  it('prefers the concrete /orders/cancel_all over /orders/{order_id}', () => {
    expect(operation('PUT', '/orders/cancel_all')).toBe('cancelAllOrders');
    expect(operation('PUT', '/orders/123')).toBe('editOrder');
    expect(operation('PUT', '/trades/close_all')).toBe('closeAllTrades');
    expect(operation('PUT', '/trades/123')).toBe('updateTrade');
  });

  it('matches the literal client: prefix and decodes the client order id', () => {
    const resolution = findRoute(routes, 'PUT', '/orders/client:a%2Fb%3F%23%25/cancel');
    expect(resolution.kind).toBe('matched');
    if (resolution.kind !== 'matched') return;
    expect(resolution.match.route.operation.operationId).toBe('cancelOrderByClientId');
    expect(resolution.match.path).toEqual({ client_order_id: 'a/b?#%' });
  });

  it('serves partner paths under /api/v1', () => {
    expect(operation('POST', '/api/v1/partner/pk_1/intent')).toBe('createIntent');
    expect(operation('GET', '/api/v1/transaction/status/x')).toBe('getTransactionStatus');
  });

  it('finds nothing for an unknown path, a wrong method or an empty client id', () => {
    expect(findRoute(routes, 'GET', '/nowhere').kind).toBe('not-found');
    expect(findRoute(routes, 'DELETE', '/orders').kind).toBe('not-found');
    expect(findRoute(routes, 'GET', '/orders/client:').kind).toBe('matched');
    expect(operation('GET', '/orders/client:')).toBe('getOrder');
  });

  it('reports a parameter that is not valid percent-encoding', () => {
    expect(findRoute(routes, 'GET', '/orders/client:%E0%A4%A').kind).toBe('bad-encoding');
  });
});
