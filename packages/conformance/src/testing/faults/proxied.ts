/**
 * What the faults share: the operation a proxied request calls, and rewrites of the request's
 * body or of the response's status and JSON.
 */
import { findOperation } from '../../engine/spec.js';
import { jwtPayload } from '../../signing/forge.js';
import type { FaultTools, ProxiedRequest, ProxiedResponse } from '../fault-proxy.js';

export type Row = Record<string, unknown>;

export const pathname = (request: ProxiedRequest) => request.path.split('?')[0] ?? request.path;
export const operationOf = (request: ProxiedRequest) =>
  findOperation(request.method, pathname(request))?.operationId;
export const is = (request: ProxiedRequest, ...operationIds: string[]) =>
  operationIds.includes(operationOf(request) ?? '');

export function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function withBody(
  request: ProxiedRequest,
  change: (body: Row) => Row | undefined,
): ProxiedRequest {
  const body = parse(request.body);
  if (typeof body !== 'object' || body === null) return request;
  const changed = change(structuredClone(body) as Row);
  return changed ? { ...request, body: JSON.stringify(changed) } : request;
}

export function withJson(
  response: ProxiedResponse,
  change: (body: unknown) => unknown,
): ProxiedResponse {
  const body = parse(response.body);
  return body === undefined ? response : { ...response, body: JSON.stringify(change(body)) };
}

export const status =
  (from: number, to: number, ...operationIds: string[]) =>
  (request: ProxiedRequest, response: ProxiedResponse) =>
    is(request, ...operationIds) && response.status === from
      ? { ...response, status: to }
      : response;

export const serverError = (): ProxiedResponse => ({
  status: 500,
  headers: { 'content-type': 'application/json' },
  body: '{"message":"Internal error"}',
});

/** A page of `operationId` whose items show `field` cut to two places: digits lost. */
export const listedToTwoPlaces =
  (operationId: string, field: string) => (request: ProxiedRequest, response: ProxiedResponse) =>
    is(request, operationId) && response.status === 200
      ? withJson(response, (page) => ({
          ...(page as Row),
          models: ((page as Row).models as Row[]).map((item) => ({
            ...item,
            [field]: Number(item[field]).toFixed(2),
          })),
        }))
      : response;

/**
 * Trades read with each rewritten from what the server would answer: an order's trades
 * (`GET /orders/{id}/trades`, a list) and the trades listed (`GET /trades`, a page of models).
 */
export const tradesRead =
  (rewrite: (trade: Row) => Row) => (request: ProxiedRequest, response: ProxiedResponse) => {
    const rewritten = (trades: Row[]) => trades.map((trade) => ({ ...trade, ...rewrite(trade) }));
    if (response.status !== 200) return response;
    if (is(request, 'listOrderTrades')) {
      return withJson(response, (trades) => rewritten(trades as Row[]));
    }
    return is(request, 'listTrades')
      ? withJson(response, (page) => ({
          ...(page as Row),
          models: rewritten((page as Row).models as Row[]),
        }))
      : response;
  };

/**
 * A request of `operationId` sent without its query parameters `names`, signed again for the
 * path it then has: a filter the server ignores, not a JWT it refuses.
 */
export const withoutQuery =
  (operationId: string, ...names: string[]) =>
  async (request: ProxiedRequest, tools: FaultTools): Promise<ProxiedRequest> => {
    if (!is(request, operationId)) return request;
    // Only the suite's own token is signed here: another trader's calls go as they are.
    const jwt = request.headers['x-service-auth'];
    if (jwt && jwtPayload(jwt)?.token_id !== tools.target.tokenId) return request;
    const [path = request.path, query = ''] = request.path.split('?');
    const kept = new URLSearchParams(query);
    if (!names.some((name) => kept.has(name))) return request;
    for (const name of names) kept.delete(name);
    const sent = kept.toString() === '' ? path : `${path}?${kept}`;
    const signed = await tools.sign(sent);
    return { ...request, path: sent, headers: { ...request.headers, 'x-service-auth': signed } };
  };
