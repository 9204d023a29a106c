/**
 * Faults of what is asked of orders, Quick Exchange trades and intents: the call is rewritten,
 * or answered, before the server sees it.
 */
import {
  cancelAllFilterNames,
  cancelAllFilterRequirementId,
  orderListFilterNames,
  orderListFilterRequirementId,
} from '../../engine/catalog.js';
import { requestExamples } from '../../engine/spec.js';
import type { Fault, ProxiedRequest } from '../fault-proxy.js';
import { is, parse, pathname, type Row, withBody, withJson, withoutQuery } from './proxied.js';

const example = (operationId: string, name: string) =>
  structuredClone(requestExamples(operationId)[name]) as Row;

/** A cancel that does nothing yet answers as if it had: the order, re-read, with status cancelled. */
const swallowCancel: Fault = {
  name: 'cancel leaves the order live and answers success',
  covers: 'ORDER-CANCEL-LIVE',
  async request(request, tools) {
    if (!is(request, 'cancelOrder', 'cancelOrderByClientId')) return request;
    const path = pathname(request).replace(/\/cancel$/, '');
    const read = await tools.forward({
      ...request,
      method: 'GET',
      path,
      headers: { ...request.headers, 'x-service-auth': await tools.sign(path) },
    });
    return withJson(read, (order) => ({
      ...(order as Row),
      status: 'cancelled',
      margin_used: '0',
      margin_interest: '0',
      unwound_trade_leverage_level: null,
    }));
  },
};

export const requestFaults: Fault[] = [
  swallowCancel,
  ...cancelAllFilterNames().map(
    (filter): Fault => ({
      name: `cancel_all ignores its ${filter} filter`,
      covers: cancelAllFilterRequirementId(filter),
      // The combined round uses every filter, so it breaks too.
      alsoFails: ['ORDER-CANCEL-ALL-MATCHING'],
      request: (request) =>
        is(request, 'cancelAllOrders')
          ? withBody(request, (body) => {
              delete body[filter];
              return body;
            })
          : request,
    }),
  ),
  ...orderListFilterNames().map(
    (filter): Fault => ({
      name: `GET /orders ignores its ${filter} filter`,
      covers: orderListFilterRequirementId(filter),
      request: withoutQuery('listOrders', filter),
    }),
  ),
  {
    name: 'a price between ticks is taken to the tick below',
    covers: 'ORDER-REFUSED-OFF-TICK',
    request: (request) =>
      is(request, 'createOrder', 'editOrder')
        ? withBody(request, (body) =>
            typeof body.price === 'string' && body.price.includes('.')
              ? { ...body, price: body.price.split('.')[0] }
              : undefined,
          )
        : request,
  },
  {
    name: "a quantity finer than its currency's step is cut to the step",
    covers: 'ORDER-REFUSED-OFF-QUANTITY-STEP',
    request: (request) =>
      is(request, 'createOrder')
        ? withBody(request, (body) =>
            typeof body.quantity === 'string' && (body.quantity.split('.')[1]?.length ?? 0) > 8
              ? { ...body, quantity: body.quantity.slice(0, body.quantity.indexOf('.') + 9) }
              : undefined,
          )
        : request,
  },
  {
    name: 'a post-only order that would take is placed as a plain limit order',
    covers: 'ORDER-REFUSED-POST-ONLY-CROSSING',
    request: (request) =>
      is(request, 'createOrder')
        ? withBody(request, (body) =>
            body.order_type === 'limit_post_only' ? { ...body, order_type: 'limit' } : undefined,
          )
        : request,
  },
  {
    name: 'a client_order_id is held to 36 characters, not 36 bytes',
    covers: 'ORDER-REFUSED-CLIENT-ID-BYTES',
    request: (request) =>
      is(request, 'createOrder')
        ? withBody(request, (body) =>
            typeof body.client_order_id === 'string' && /[^\x20-\x7e]/.test(body.client_order_id)
              ? { ...body, client_order_id: body.client_order_id.replace(/[^\x20-\x7e]/g, 'e') }
              : undefined,
          )
        : request,
  },
  {
    name: 'a client_order_id used before is taken again',
    covers: 'ORDER-REFUSED-CLIENT-ID-REUSED',
    request: (() => {
      const used = new Set<string>();
      return (request: ProxiedRequest) =>
        is(request, 'createOrder')
          ? withBody(request, (body) => {
              const id = body.client_order_id;
              if (typeof id !== 'string') return undefined;
              if (!used.has(id)) {
                used.add(id);
                return undefined;
              }
              // The server sees a fresh id: it places the order it should have refused.
              return { ...body, client_order_id: `${id.slice(0, 30)}-again` };
            })
          : request;
    })(),
  },
  {
    name: 'an edit of a partly filled order is answered as done',
    covers: 'ORDER-EDIT-PARTIALLY-FILLED-REFUSED',
    response: (request, response) =>
      is(request, 'editOrder') && response.status === 422 && response.body.includes('"order"')
        ? { ...response, status: 200 }
        : response,
  },
  {
    name: "a margin order naming no leverage level is placed at 1, not the account's level",
    covers: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS',
    request: (request) =>
      is(request, 'createOrder')
        ? withBody(request, (body) =>
            body.trading_type === 'margin' && body.leverage_level === undefined
              ? { ...body, leverage_level: 1 }
              : undefined,
          )
        : request,
  },
  {
    name: 'cancel_all ignores combined filters',
    covers: 'ORDER-CANCEL-ALL-MATCHING',
    request: (request) =>
      is(request, 'cancelAllOrders')
        ? withBody(request, (body) => (Object.keys(body).length > 1 ? {} : body))
        : request,
  },
  {
    name: 'cancel_all without filter cancels only buy orders',
    covers: 'ORDER-CANCEL-ALL-NO-FILTER',
    request: (request) =>
      is(request, 'cancelAllOrders') &&
      Object.keys((parse(request.body) as Row | undefined) ?? {}).length === 0
        ? {
            ...request,
            body: '{"side":"buy"}',
            headers: { ...request.headers, 'content-type': 'application/json' },
          }
        : request,
  },
  {
    name: 'cancel_all also cancels conditional orders',
    covers: 'ORDER-CANCEL-ALL-SKIPS-CONDITIONAL',
    async request(request, tools) {
      if (!is(request, 'cancelAllOrders')) return request;
      const path = '/orders?status=live&limit=1000';
      const listed = await tools.forward({
        method: 'GET',
        path,
        headers: { 'x-service-auth': await tools.sign(path) },
        body: '',
      });
      const conditional = (
        ((parse(listed.body) as Row | undefined)?.models as Row[] | undefined) ?? []
      ).filter((order) => order.source_action === 'netout_open');
      for (const order of conditional) {
        const cancel = `/orders/${order.id}/cancel`;
        await tools.forward({
          method: 'PUT',
          path: cancel,
          headers: { 'x-service-auth': await tools.sign(cancel) },
          body: '',
        });
      }
      return request;
    },
  },
  {
    name: 'edit answers the unchanged order',
    covers: 'ORDER-EDIT-LIVE',
    async request(request, tools) {
      if (!is(request, 'editOrder', 'editOrderByClientId')) return request;
      return tools.forward({
        ...request,
        method: 'GET',
        headers: { ...request.headers, 'x-service-auth': await tools.sign(pathname(request)) },
      });
    },
  },
  {
    name: 'transaction with no method created PENDING (methods added)',
    covers: 'QE-TRADE-NO-METHOD',
    request: (request) =>
      is(request, 'intentToTrade')
        ? withBody(request, (body) => {
            if (body.funding_settlement || body.payout_settlement || body.intent_id)
              return undefined;
            const full = example('intentToTrade', 'full');
            return {
              ...body,
              funding_settlement: full.funding_settlement,
              payout_settlement: full.payout_settlement,
            };
          })
        : request,
  },
  {
    name: 'a parameter given with both methods is lost',
    covers: 'QE-TRADE-BOTH-METHODS',
    request: (request) =>
      is(request, 'intentToTrade')
        ? withBody(request, (body) => {
            const funding = body.funding_settlement as Row | undefined;
            if (!funding?.input_parameters || !body.payout_settlement) return undefined;
            delete funding.input_parameters;
            return body;
          })
        : request,
  },
  {
    name: 'a missing parameter is invented',
    covers: 'QE-TRADE-PARAMETER-MISSING',
    request: (request) =>
      is(request, 'intentToTrade')
        ? withBody(request, (body) => {
            const funding = body.funding_settlement as Row | undefined;
            if (!funding || funding.input_parameters) return undefined;
            funding.input_parameters = (
              example('intentToTrade', 'full').funding_settlement as Row
            ).input_parameters;
            return body;
          })
        : request,
  },
  {
    name: 'an intent without strategy becomes ONE_TO_MANY',
    covers: 'INTENT-STRATEGY-DEFAULT',
    request: (request) =>
      is(request, 'createIntent')
        ? withBody(request, (body) =>
            body.strategy ? undefined : { ...body, strategy: 'ONE_TO_MANY' },
          )
        : request,
  },
  {
    name: 'an intent is made without the expiry it asks for',
    covers: 'INTENT-EXPIRED-REFUSED',
    testControl: true,
    request: (request) =>
      is(request, 'createIntent')
        ? withBody(request, (body) => {
            if (body.expires_at === undefined) return undefined;
            delete body.expires_at;
            return body;
          })
        : request,
  },
  {
    name: 'a ONE_TO_MANY intent forgets its partner_ref',
    covers: 'INTENT-ONE-TO-MANY-REUSABLE',
    request: (request) =>
      is(request, 'createIntent')
        ? withBody(request, (body) => {
            if (body.strategy !== 'ONE_TO_MANY') return undefined;
            delete body.partner_ref;
            return body;
          })
        : request,
  },
];
