/** Faults only generated input or a generated sequence of calls can catch. */
import { findOperation, requestSchemaPointer } from '../../engine/spec.js';
import { validatorAt } from '../../engine/validate.js';
import type { Fault, ProxiedRequest } from '../fault-proxy.js';
import { is, parse, pathname, type Row, serverError, withJson } from './proxied.js';

/** A body of `operationId` valid against its request schema. */
function validRequest(request: ProxiedRequest, operationId: string): Row | undefined {
  if (!is(request, operationId)) return undefined;
  const body = parse(request.body);
  const pointer = requestSchemaPointer(operationId);
  if (!pointer || typeof body !== 'object' || body === null) return undefined;
  return validatorAt(
    findOperation(request.method, pathname(request))?.api ?? 'partner',
    pointer,
  )(body)
    ? (body as Row)
    : undefined;
}

/**
 * Caught only by generated input: a valid intent_to_trade without terms_of_service crashes the
 * server. Shrinking leaves the smallest such body: the required fields alone.
 */
export const crashWithoutTerms: Fault = {
  name: 'a valid intent_to_trade without terms_of_service crashes the server',
  covers: 'INPUT-GENERATED-VALID',
  request: (request) => {
    const body = validRequest(request, 'intentToTrade');
    return body && !body.terms_of_service ? serverError() : request;
  },
};

/**
 * Caught only by a sequence: a cancel of an order that was edited before answers success and
 * leaves it live. The shortest sequence that shows it is place, edit, cancel.
 */
export function cancelAfterEditIgnored(): Fault {
  const edited = new Set<string>();
  return {
    name: 'a cancel of an edited order answers success and leaves it live',
    covers: 'MODEL-ORDER-SEQUENCES',
    async request(request, tools) {
      if (!is(request, 'cancelOrder', 'cancelOrderByClientId')) return request;
      const path = pathname(request).replace(/\/cancel$/, '');
      if (!edited.has(path.replace(/^\/orders\//, ''))) return request;
      const read = await tools.forward({
        ...request,
        method: 'GET',
        path,
        headers: { ...request.headers, 'x-service-auth': await tools.sign(path) },
      });
      return withJson(read, (order) => ({ ...(order as Row), status: 'cancelled' }));
    },
    response(request, response) {
      if (is(request, 'editOrder', 'editOrderByClientId') && response.status === 200) {
        const order = (parse(response.body) as Row | undefined) ?? {};
        edited.add(String(order.id));
        edited.add(`client:${String(order.client_order_id)}`);
      }
      return response;
    },
  };
}

/**
 * Caught only by a sequence that ends a transaction: one ended FILLED reads back PENDING, as if
 * the fill were lost. The shortest sequence: create, end, read.
 */
export const fillLost: Fault = {
  name: 'a transaction ended FILLED reads back PENDING',
  covers: 'MODEL-TRANSACTION-SEQUENCES',
  response: (request, response) =>
    is(request, 'getTransactionStatus') && response.status < 300
      ? withJson(response, (body) => {
          const payload = (body as { payload?: Row }).payload;
          return payload?.status === 'FILLED'
            ? { ...(body as Row), payload: { ...payload, status: 'PENDING' } }
            : body;
        })
      : response,
};

/**
 * Caught by the transaction model without an adapter step: a transaction created with both
 * methods reads back as if no method had been given.
 */
export const methodsForgotten: Fault = {
  name: 'a transaction created PENDING reads back SETTLEMENT_METHOD_REQUIRED',
  covers: 'MODEL-TRANSACTION-SEQUENCES',
  response: (request, response) =>
    is(request, 'getTransactionStatus') && response.status < 300
      ? withJson(response, (body) => {
          const payload = (body as { payload?: Row }).payload;
          return payload?.status === 'PENDING'
            ? { ...(body as Row), payload: { ...payload, status: 'SETTLEMENT_METHOD_REQUIRED' } }
            : body;
        })
      : response,
};

export const generatedFaults: Fault[] = [
  cancelAfterEditIgnored(),
  methodsForgotten,
  crashWithoutTerms,
  {
    name: 'cancel_all executes a body that breaks its schema and answers 200',
    covers: 'INPUT-GENERATED-INVALID',
    response: (request, response) =>
      is(request, 'cancelAllOrders') && response.status >= 400 && response.status < 500
        ? { ...response, status: 200, body: '{"models":[]}' }
        : response,
  },
];
