import type { Fault } from '../fault-proxy.js';
import { is, type Row, withJson } from './proxied.js';

/**
 * A server that keeps no state, as a mock made from the specs is: every created order is
 * answered with the id of the first one. Not among `faults`: no single requirement covers it,
 * and what it must give is one note on the run and an ERROR (never a PASS or a FAIL) on every
 * scenario that needs two orders.
 */
export function sameOrderIdFault(): Fault {
  let first: unknown;
  return {
    name: 'every created order gets the same id',
    covers: 'AUTH-PATH-MISMATCH',
    response(request, response) {
      if (!is(request, 'createOrder') || response.status !== 200) return response;
      return withJson(response, (body) => {
        const order = body as Row;
        first ??= order.id;
        return { ...order, id: first };
      });
    },
  };
}

/** A server that forgets what it made: every order read answers 404. Not among `faults`, for the same reason. */
export const forgetfulFault: Fault = {
  name: 'a created order cannot be read back',
  covers: 'ORDER-EDIT-LIVE',
  request: (request) =>
    is(request, 'getOrder')
      ? {
          status: 404,
          headers: { 'content-type': 'application/json' },
          body: '{"message":"Order not found"}',
        }
      : request,
};
