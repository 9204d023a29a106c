import { serviceAuthPayload } from '@exchange-kit/core/auth';
import { Decimal } from 'decimal.js';
import {
  cancelAllFilterNames,
  cancelAllFilterRequirementId,
  catalog,
  responseRequirementId,
} from '../engine/catalog.js';
import { scenarios } from '../engine/run.js';
import {
  deref,
  findOperation,
  operation,
  requestExamples,
  requestSchemaPointer,
} from '../engine/spec.js';
import { answeredOnlyAfterMissingSteps } from '../engine/step-gated-answers.js';
import { validatorAt } from '../engine/validate.js';
import { forgeJwt, jwtHeader, jwtPayload } from '../signing/forge.js';
import { eventFaults } from './event-faults.js';
import type { Fault, FaultTools, ProxiedRequest, ProxiedResponse } from './fault-proxy.js';
import { valueFaults } from './value-faults.js';

type Row = Record<string, unknown>;

const pathname = (request: ProxiedRequest) => request.path.split('?')[0] ?? request.path;
const operationOf = (request: ProxiedRequest) =>
  findOperation(request.method, pathname(request))?.operationId;
const is = (request: ProxiedRequest, ...operationIds: string[]) =>
  operationIds.includes(operationOf(request) ?? '');

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function withBody(request: ProxiedRequest, change: (body: Row) => Row | undefined): ProxiedRequest {
  const body = parse(request.body);
  if (typeof body !== 'object' || body === null) return request;
  const changed = change(structuredClone(body) as Row);
  return changed ? { ...request, body: JSON.stringify(changed) } : request;
}

function withJson(response: ProxiedResponse, change: (body: unknown) => unknown): ProxiedResponse {
  const body = parse(response.body);
  return body === undefined ? response : { ...response, body: JSON.stringify(change(body)) };
}

const status =
  (from: number, to: number, ...operationIds: string[]) =>
  (request: ProxiedRequest, response: ProxiedResponse) =>
    is(request, ...operationIds) && response.status === from
      ? { ...response, status: to }
      : response;

/** A decimal one unit of its last place more: "1.05" is "1.06", "0" is "1". */
function offInLastDigit(value: unknown): string {
  const amount = String(value);
  const places = amount.split('.')[1]?.length ?? 0;
  const unit = places === 0 ? '1' : `0.${'0'.repeat(places - 1)}1`;
  return new Decimal(amount).plus(unit).toFixed();
}

const serverError = (): ProxiedResponse => ({
  status: 500,
  headers: { 'content-type': 'application/json' },
  body: '{"message":"Internal error"}',
});

/** The request with its JWT payload changed and signed again with the real secret and a fresh nonce. */
function resign(request: ProxiedRequest, tools: FaultTools, changes: Row = {}): ProxiedRequest {
  const jwt = request.headers['x-service-auth'];
  const payload = (jwt && jwtPayload(jwt)) || {
    token_id: tools.target.tokenId,
    path: request.path,
  };
  const { nonce } = serviceAuthPayload(tools.target, { path: request.path });
  const signed = forgeJwt({ ...payload, ...changes, nonce }, { secret: tools.target.tokenSecret });
  return { ...request, headers: { ...request.headers, 'x-service-auth': signed } };
}

const header = (jwt: string): Row => jwtHeader(jwt) ?? {};

function signatureValid(jwt: string, secret: string): boolean {
  const payload = jwtPayload(jwt);
  return (
    payload !== undefined && header(jwt).alg === 'HS256' && forgeJwt(payload, { secret }) === jwt
  );
}

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

const requestFaults: Fault[] = [
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
  {
    name: 'a private order call without X-Service-Auth is signed for it',
    covers: 'AUTH-MISSING-HEADER',
    request: async (request, tools) =>
      is(request, 'cancelOrder') && !request.headers['x-service-auth']
        ? resign(request, tools, { path: request.path })
        : request,
  },
  {
    name: 'a bad signature is accepted',
    covers: 'AUTH-BAD-SIGNATURE',
    request: (request, tools) => {
      const jwt = request.headers['x-service-auth'];
      return jwt && header(jwt).alg === 'HS256' && !signatureValid(jwt, tools.target.tokenSecret)
        ? resign(request, tools)
        : request;
    },
  },
  {
    name: 'alg none is accepted',
    covers: 'AUTH-ALG-NONE',
    request: (request, tools) => {
      const jwt = request.headers['x-service-auth'];
      return jwt && header(jwt).alg === 'none' ? resign(request, tools) : request;
    },
  },
  {
    name: 'HS512 is accepted',
    covers: 'AUTH-ALG-OTHER',
    request: (request, tools) => {
      const jwt = request.headers['x-service-auth'];
      return jwt && header(jwt).alg === 'HS512' ? resign(request, tools) : request;
    },
  },
  ((): Fault => {
    const seen = new Set<string>();
    return {
      name: 'a replayed JWT is accepted',
      covers: 'AUTH-NONCE-REPLAYED',
      request: (request, tools) => {
        const jwt = request.headers['x-service-auth'];
        if (!jwt) return request;
        if (seen.has(jwt)) return resign(request, tools);
        seen.add(jwt);
        return request;
      },
    };
  })(),
  ((): Fault => {
    const seen = new Set<string>();
    return {
      name: 'an order JWT without nonce places any number of orders',
      covers: 'AUTH-NONCE-LESS-REPLAYED',
      request: (request, tools) => {
        const jwt = request.headers['x-service-auth'];
        if (!jwt || !is(request, 'createOrder') || jwtPayload(jwt)?.nonce !== undefined) {
          return request;
        }
        if (!seen.has(jwt)) {
          seen.add(jwt);
          return request;
        }
        const payload = serviceAuthPayload(tools.target, {
          path: request.path,
          withoutNonce: true,
        });
        const fresh = forgeJwt(payload, { secret: tools.target.tokenSecret });
        return { ...request, headers: { ...request.headers, 'x-service-auth': fresh } };
      },
    };
  })(),
  ((): Fault => {
    let highest = 0;
    return {
      name: 'a smaller nonce is accepted',
      covers: 'AUTH-NONCE-SMALLER',
      request: (request, tools) => {
        const nonce = Number(jwtPayload(request.headers['x-service-auth'] ?? '')?.nonce);
        if (!Number.isFinite(nonce)) return request;
        if (nonce < highest) return resign(request, tools);
        highest = nonce;
        return request;
      },
    };
  })(),
  {
    name: 'a JWT signed for another path is accepted',
    covers: 'AUTH-PATH-MISMATCH',
    request: (request, tools) => {
      const payload = jwtPayload(request.headers['x-service-auth'] ?? '');
      const signed = String(payload?.path ?? '').split('?')[0];
      return payload && payload.path !== '/realtime' && signed !== pathname(request)
        ? resign(request, tools, { path: request.path })
        : request;
    },
  },
  {
    name: 'the query string is left out of the path check',
    covers: 'AUTH-QUERY-MISMATCH',
    request: (request, tools) => {
      const payload = jwtPayload(request.headers['x-service-auth'] ?? '');
      return payload && payload.path === pathname(request) && request.path.includes('?')
        ? resign(request, tools, { path: request.path })
        : request;
    },
  },
  {
    name: 'the ids of an unapproved OAuth request are accepted',
    covers: 'AUTH-OAUTH-UNAPPROVED',
    response: status(401, 200, 'getUserContext'),
  },
  {
    name: 'a call through an OAuth grant is served beyond the grant, as the token itself',
    covers: 'AUTH-OAUTH-BEYOND-GRANT',
    request: (request, tools) =>
      is(request, 'cancelOrder') &&
      jwtPayload(request.headers['x-service-auth'] ?? '')?.oauth_request_public_id
        ? resign(request, tools, {
            oauth_request_public_id: undefined,
            oauth_request_private_id: undefined,
          })
        : request,
  },
  {
    name: 'delegate_path is not checked',
    covers: 'AUTH-PARTNER-DELEGATE-PATH',
    request: (request, tools) => {
      const payload = jwtPayload(request.headers['x-service-auth'] ?? '');
      return payload?.path === '/realtime' && payload.delegate_path !== request.path
        ? resign(request, tools, { delegate_path: request.path })
        : request;
    },
  },
  {
    name: 'malformed JSON crashes the server',
    covers: 'INPUT-MALFORMED-JSON',
    request: (request) =>
      request.body !== '' && parse(request.body) === undefined ? serverError() : request,
  },
  {
    name: 'a negative quantity crashes the server',
    covers: 'INPUT-NEGATIVE-QUANTITY',
    request: (request) => (/"quantity":"-/.test(request.body) ? serverError() : request),
  },
];

// Each schema keyword a bad-input requirement breaks: a request breaking it crashes the server.
const keywordOf: Record<string, string> = {
  'INPUT-MISSING-REQUIRED': 'required',
  'INPUT-WRONG-TYPE': 'type',
  'INPUT-UNKNOWN-ENUM': 'enum',
  'INPUT-TOO-LONG': 'maxLength',
  'INPUT-PATTERN': 'pattern',
  'INPUT-UNKNOWN-FIELD': 'additionalProperties',
};

/**
 * Where in the spec the body is meant to be judged: through each oneOf, the member its
 * discriminator names, else the branch sharing most property names with it (so a flat order
 * is not judged as a wrapped one). A discriminator naming no member (missing, unknown) leaves
 * the fields every member shares, where that value breaks `required` or `enum` as it should.
 */
function branchFor(api: 'exchange' | 'partner', pointer: string, body: unknown): string {
  const schema = deref(api, { $ref: decodeURIComponent(pointer) }) as Row;
  const branches = (schema.oneOf as Row[] | undefined) ?? [];
  if (branches.length === 0 || typeof body !== 'object' || body === null) return pointer;
  const discriminator = schema.discriminator as
    | { propertyName: string; mapping?: Record<string, string> }
    | undefined;
  if (discriminator) {
    const named = discriminator.mapping?.[String((body as Row)[discriminator.propertyName])];
    if (named) return named;
    const bases = new Set(
      branches.map(
        (branch) =>
          ((deref(api, branch) as Row).allOf as Row[] | undefined)?.[0]?.$ref as string | undefined,
      ),
    );
    const [shared] = bases;
    return bases.size === 1 && shared ? shared : pointer;
  }
  const overlap = (branch: unknown) =>
    Object.keys(((deref(api, branch) as Row).properties as Row | undefined) ?? {}).filter(
      (name) => name in body,
    ).length;
  const best = branches.reduce<number>(
    (chosen, branch, index) => (overlap(branch) > overlap(branches[chosen]) ? index : chosen),
    0,
  );
  return branchFor(api, `${pointer}/oneOf/${best}`, body);
}

/** The schema errors of a request body, against the schema it is meant for. */
function requestErrors(
  api: 'exchange' | 'partner',
  pointer: string,
  body: unknown,
): { keyword: string; instancePath: string }[] {
  const validate = validatorAt(api, branchFor(api, pointer, body));
  return validate(body) ? [] : (validate.errors ?? []);
}

const schemaFaults: Fault[] = Object.entries(keywordOf).map(([covers, keyword]) => ({
  name: `a request breaking its schema's ${keyword} crashes the server`,
  covers,
  request(request) {
    const op = findOperation(request.method, pathname(request));
    const pointer = op && requestSchemaPointer(op.operationId);
    const body = parse(request.body);
    if (!op || !pointer || body === undefined) return request;
    const errors = requestErrors(op.api, pointer, body);
    // A value of the wrong type breaks its enum and pattern too; that is the type's fault alone.
    // Likewise a value too long for its field breaks the field's pattern: the length's fault.
    const causes =
      keyword === 'type' ? [] : keyword === 'pattern' ? ['type', 'maxLength'] : ['type'];
    const explained = new Set(
      errors.filter((error) => causes.includes(error.keyword)).map((error) => error.instancePath),
    );
    const breaks = errors.some(
      (error) => error.keyword === keyword && !explained.has(error.instancePath),
    );
    return breaks ? serverError() : request;
  },
}));

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

const generatedFaults: Fault[] = [
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

const responseFaults: Fault[] = [
  {
    name: 'a 404 of edit turned into 200',
    covers: 'ORDER-EDIT-NOT-LIVE',
    response: status(404, 200, 'editOrder', 'editOrderByClientId'),
  },
  {
    name: 'a 404 of update_tpsl turned into 200',
    covers: 'ORDER-UPDATE-TPSL-NOT-LIVE',
    response: status(404, 200, 'updateOrderTpsl', 'updateOrderTpslByClientId'),
  },
  {
    name: 'a 404 of cancel turned into 200',
    covers: 'ORDER-CANCEL-NOT-LIVE',
    response: status(404, 200, 'cancelOrder', 'cancelOrderByClientId'),
  },
  {
    name: 'a 404 of cancel turned into 422',
    covers: 'STATUS-404-NOT-LIVE',
    alsoFails: ['ORDER-CANCEL-NOT-LIVE'],
    response: status(404, 422, 'cancelOrder', 'cancelOrderByClientId'),
  },
  {
    name: 'the loan book answers 203',
    covers: 'STATUS-200-SUCCESS',
    response: status(200, 203, 'getLoanBook'),
  },
  {
    name: 'intent_to_trade answers 200 instead of 202',
    covers: 'STATUS-202-TRANSACTION-CREATED',
    // Each row of the transaction table says response 202 as well.
    alsoFails: ['QE-TRADE-NO-METHOD', 'QE-TRADE-BOTH-METHODS', 'QE-TRADE-PARAMETER-MISSING'],
    response: status(202, 200, 'intentToTrade'),
  },
  {
    name: 'a consumed intent is fulfilled again',
    covers: 'INTENT-ONE-TO-ONE-CONSUMED',
    response: status(422, 202, 'intentToTrade'),
  },
  {
    name: "executions/me names the other side as the caller's",
    covers: 'FILL-SEEN-BY-EACH-SIDE',
    response: (request, response) =>
      is(request, 'listOwnExecutions') && response.status === 200
        ? withJson(response, (page) => ({
            ...(page as Row),
            models: ((page as Row).models as Row[]).map((fill) => ({
              ...fill,
              my_side: fill.my_side === 'buy' ? 'sell' : 'buy',
            })),
          }))
        : response,
  },
  {
    name: 'an order read with details lists no fill',
    covers: 'FILL-IN-ORDER-DETAILS',
    response: (request, response) =>
      is(request, 'getOrder') && request.path.includes('with_details=1') && response.status === 200
        ? withJson(response, (order) => ({ ...(order as Row), executions: [] }))
        : response,
  },
  {
    name: 'executions from a timestamp cut the last second at the limit',
    covers: 'FILL-SINCE-WHOLE-SECONDS',
    response: (request, response) => {
      const limit = new URLSearchParams(request.path.split('?')[1]).get('limit');
      return is(request, 'listExecutions') && response.status === 200 && limit
        ? withJson(response, (fills) =>
            Array.isArray(fills) ? fills.slice(0, Number(limit)) : fills,
          )
        : response;
    },
  },
  {
    name: 'the balance history leaves out the fees of fills',
    covers: 'LEDGER-EXPLAINS-BALANCE',
    response: (request, response) =>
      is(request, 'listBalanceHistory') && response.status === 200
        ? withJson(response, (entries) =>
            Array.isArray(entries)
              ? entries.filter((entry) => (entry as Row).source_action !== 'trade_fee')
              : entries,
          )
        : response,
  },
  {
    name: 'the reserved balance details leave out the orders',
    covers: 'RESERVED-IS-DETAILED',
    response: (request, response) =>
      is(request, 'getReservedBalanceDetails') && response.status === 200
        ? withJson(response, (body) => ({
            ...(body as Row),
            details: ((body as Row).details as Row[]).filter(
              (detail) => detail.holder_type !== 'order',
            ),
          }))
        : response,
  },
  {
    name: 'update_tpsl drops the margin fields',
    covers: 'ORDER-UPDATE-TPSL-LIVE',
    response: (request, response) =>
      is(request, 'updateOrderTpsl', 'updateOrderTpslByClientId') && response.status === 200
        ? withJson(response, (order) => {
            const { margin_used, margin_interest, unwound_trade_leverage_level, ...rest } =
              order as Row;
            return rest;
          })
        : response,
  },
  {
    name: 'a fee estimate off in its last digit',
    covers: 'FEE-ESTIMATE-MATCHES-FILL',
    response: (request, response) =>
      is(request, 'estimateFee') && response.status === 200
        ? withJson(response, (estimate) => {
            const options = ((estimate as Row).fee_options as Row).default as Row[];
            const nudged = options.map((option) => ({
              ...option,
              amount: offInLastDigit(option.amount),
            }));
            return { ...(estimate as Row), fee_options: { default: nudged } };
          })
        : response,
  },
  {
    name: "an order's fee off in its last digit",
    covers: 'ORDER-FEE-SUMS-CHARGES',
    response: (request, response) =>
      is(request, 'getOrder') && response.status === 200
        ? withJson(response, (order) => ({
            ...(order as Row),
            order_fee: offInLastDigit((order as Row).order_fee),
          }))
        : response,
  },
  // --- Trades ---
  {
    name: "an order's trades show a quantity other than what the order filled",
    covers: 'TRADE-OPENED-BY-MARGIN-FILL',
    response: (request, response) =>
      is(request, 'listOrderTrades') && response.status === 200
        ? withJson(response, (trades) =>
            (trades as Row[]).map((trade) => ({
              ...trade,
              quantity: `${String(trade.quantity)}${String(trade.quantity).includes('.') ? '1' : '.1'}`,
            })),
          )
        : response,
  },
  {
    name: "the trades' close_fee off in its last digit",
    covers: 'TRADE-CLOSE-FEE',
    response: (request, response) =>
      is(request, 'listTrades') && response.status === 200
        ? withJson(response, (page) => ({
            ...(page as Row),
            models: ((page as Row).models as Row[]).map((trade) => ({
              ...trade,
              close_fee: offInLastDigit(trade.close_fee),
            })),
          }))
        : response,
  },
  {
    name: 'a query parameter given twice is read as its first value',
    covers: 'INPUT-REPEATED-QUERY',
    request: (request) => {
      if (!is(request, 'listExecutions')) return request;
      const [path, query = ''] = request.path.split('?');
      const first = new URLSearchParams();
      for (const [name, value] of new URLSearchParams(query)) {
        if (!first.has(name)) first.append(name, value);
      }
      return { ...request, path: `${path}?${first}` };
    },
  },
  {
    name: "the caller's margin fills' pnl off in its last digit",
    covers: 'TRADE-CLOSE-PNL',
    response: (request, response) =>
      is(request, 'listOwnExecutions') && response.status === 200
        ? withJson(response, (page) => ({
            ...(page as Row),
            models: ((page as Row).models as Row[]).map((fill) =>
              fill.pnl === undefined ? fill : { ...fill, pnl: offInLastDigit(fill.pnl) },
            ),
          }))
        : response,
  },
  {
    name: 'a partial close leaves close_quantity as it was',
    covers: 'TRADE-CLOSE-PARTIAL',
    response: (request, response) =>
      is(request, 'closeTrade') && response.status === 200
        ? withJson(response, (trade) => ({ ...(trade as Row), close_quantity: '0' }))
        : response,
  },
  {
    name: 'close_all closes the other side than the one asked for',
    covers: 'TRADE-CLOSE-ALL',
    request: (request) =>
      is(request, 'closeAllTrades')
        ? withBody(request, (body) => ({ side: body.side === 'long' ? 'short' : 'long' }))
        : request,
  },
];

/** The first property a schema requires, following $ref and taking the first oneOf branch. */
function firstRequired(api: 'exchange' | 'partner', schema: unknown): string | undefined {
  const resolved = deref(api, schema) as Row | undefined;
  const branch = resolved?.oneOf ? deref(api, (resolved.oneOf as unknown[])[0]) : resolved;
  return ((branch as Row | undefined)?.required as string[] | undefined)?.[0];
}

/** Operations a 2xx of which needs an adapter step the sandbox gives through its test control. */
const answeredOnlyThroughTestControl = answeredOnlyAfterMissingSteps(scenarios);

/** For every operation: its 2xx response loses its first required field (or, for an array, gets a mistyped item). */
const fieldFaults: Fault[] = catalog
  .filter((requirement) => requirement.kind === 'response')
  .map((requirement) => {
    const operationId = requirement.operations[0] as string;
    const op = operation(operationId);
    return {
      name: `${operationId} drops a required field`,
      covers: responseRequirementId(operationId),
      testControl: answeredOnlyThroughTestControl.has(operationId),
      response: (request, response) => {
        if (!is(request, operationId) || response.status >= 300) return response;
        const schema = Object.values(op.responses[String(response.status)]?.content ?? {})[0]
          ?.schema;
        return withJson(response, (body) => {
          if (Array.isArray(body)) return ['conformance', ...body.slice(1)];
          const field = firstRequired(op.api, schema);
          if (!field) return [];
          const { [field]: _dropped, ...rest } = body as Row;
          return rest;
        });
      },
    };
  });

/** Every fault the suite must catch, at least one per requirement. */
/** A client_ref repeated from any session is answered with the transaction it first made. */
export function clientRefShared(): Fault {
  const answered = new Map<string, ProxiedResponse>();
  const refOf = (request: ProxiedRequest) => {
    const ref = (parse(request.body) as Row | undefined)?.client_ref;
    return is(request, 'intentToTrade') && typeof ref === 'string' ? ref : undefined;
  };
  return {
    name: "a client_ref from another session answers with that session's transaction",
    covers: 'AUTH-CLIENT-REF-OTHER-SESSION',
    request(request) {
      const ref = refOf(request);
      return (ref !== undefined && answered.get(ref)) || request;
    },
    response(request, response) {
      const ref = refOf(request);
      if (ref !== undefined && response.status === 202) answered.set(ref, response);
      return response;
    },
  };
}

/** Denied, pending and state reads of OAuth requests, as the conventions name them. */
const oauthStateFaults: Fault[] = [
  {
    name: 'a pending OAuth request is refused as any bad credential is, naming nothing',
    covers: 'OAUTH-PENDING-REFUSED',
    response: (request, response) =>
      is(request, 'getUserContext') && response.status === 401 && response.body.includes('pending')
        ? {
            ...response,
            headers: { ...response.headers, 'content-type': 'text/plain; charset=utf-8' },
            body: 'API Authentication failed',
          }
        : response,
  },
  {
    name: 'a denied OAuth request reads as a pending one',
    covers: 'OAUTH-DENIED-REFUSED',
    testControl: true,
    response: (request, response) =>
      is(request, 'getUserContext') && response.status === 401
        ? { ...response, body: response.body.replace('"denied"', '"pending"') }
        : response,
  },
  {
    name: 'the state of an OAuth request always reads pending',
    covers: 'OAUTH-STATE-READ',
    response: (request, response) =>
      is(request, 'getOAuthRequest') && response.status === 200
        ? withJson(response, (body) => ({ ...(body as Row), status: 'pending', decided_at: null }))
        : response,
  },
];

/** A state of the withdrawal lists read as another: the move it stands for never happened. */
const withdrawalListed =
  (from: string, to: string) => (request: ProxiedRequest, response: ProxiedResponse) =>
    is(request, 'listCryptoWithdrawals', 'listFiatWithdrawals') && response.status === 200
      ? { ...response, body: response.body.replaceAll(`"state":"${from}"`, `"state":"${to}"`) }
      : response;

const loanBidFaults: Fault[] = [
  {
    name: 'the reserved balance details leave out the loan bids',
    covers: 'LOAN-BID-RESERVES',
    response: (request, response) =>
      is(request, 'getReservedBalanceDetails') && response.status === 200
        ? withJson(response, (body) => ({
            ...(body as Row),
            details: ((body as Row).details as Row[]).filter(
              (detail) => detail.holder_type !== 'loan_bid',
            ),
          }))
        : response,
  },
];

const borrowingFaults: Fault[] = [
  {
    name: 'a margin trade borrows nothing: the loans list stays empty',
    covers: 'LOAN-MARGIN-BORROWS',
    response: (request, response) =>
      is(request, 'listLoans') && response.status === 200
        ? withJson(response, (body) => ({ ...(body as Row), models: [], total_pages: 0 }))
        : response,
  },
  {
    name: "a loan's borrower chooses for its lender: the refusal answers 200",
    covers: 'LOAN-BORROWER-CANNOT-CHOOSE',
    response: status(422, 200, 'updateLoan'),
  },
  {
    name: "a lender's choice not to lend a loan again is answered as lent again",
    covers: 'LOAN-LENDER-CHOOSES',
    testControl: true,
    response: (request, response) =>
      is(request, 'updateLoan') && response.status === 200
        ? withJson(response, (body) => ({ ...(body as Row), fund_reloaned: true }))
        : response,
  },
  {
    name: "a repaid loan takes its lender's choice: the refusal naming loan_id answers 200",
    covers: 'LOAN-REPAID-CANNOT-CHOOSE',
    testControl: true,
    response: (request, response) =>
      is(request, 'updateLoan') && response.status === 422 && response.body.includes('loan_id')
        ? { ...response, status: 200 }
        : response,
  },
  {
    name: "a loan's interest never reaches its trade's total_interest",
    covers: 'LOAN-INTEREST-ACCRUES',
    testControl: true,
    response: (request, response) =>
      is(request, 'listOrderTrades') && response.status === 200
        ? withJson(response, (body) =>
            (body as Row[]).map((trade) => ({ ...trade, total_interest: '0' })),
          )
        : response,
  },
];

/** A trading account read with its figures rewritten from what the server would answer. */
const tradingAccountRead =
  (rewrite: (account: Row) => Row) => (request: ProxiedRequest, response: ProxiedResponse) =>
    is(request, 'getTradingAccount') && response.status === 200
      ? withJson(response, (account) => ({ ...(account as Row), ...rewrite(account as Row) }))
      : response;

const tradingAccountFaults: Fault[] = [
  {
    name: "a trading account's margin leaves out its open trades",
    covers: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS',
    response: tradingAccountRead((account) => ({ margin: '0', free_margin: account.equity })),
  },
  {
    name: "a trading account's equity leaves out the P&L at the mark price",
    covers: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS',
    response: tradingAccountRead((account) => ({
      equity: account.balance,
      free_margin: new Decimal(String(account.balance)).minus(String(account.margin)).toFixed(),
    })),
  },
];

const withdrawalFaults: Fault[] = [
  {
    name: 'a withdrawal holds twice the amount asked',
    covers: 'WITHDRAWAL-RESERVES',
    request: (request) =>
      is(request, 'createCryptoWithdrawal', 'createFiatWithdrawal')
        ? withBody(request, (body) => {
            const fields = (body.crypto_withdrawal ?? body.withdrawal) as Row | undefined;
            if (fields) fields.amount = String(Number(fields.amount) * 2);
            return body;
          })
        : request,
  },
  {
    name: 'the reserved balance details leave out the withdrawals',
    covers: 'WITHDRAWAL-RESERVES',
    response: (request, response) =>
      is(request, 'getReservedBalanceDetails') && response.status === 200
        ? withJson(response, (body) => ({
            ...(body as Row),
            details: ((body as Row).details as Row[]).filter(
              (detail) => detail.holder_type !== 'withdrawal',
            ),
          }))
        : response,
  },
  {
    name: 'a withdrawal that is no longer pending is cancelled all the same',
    covers: 'WITHDRAWAL-CANCEL-ONLY-PENDING',
    response: status(422, 200, 'cancelCryptoWithdrawal', 'cancelFiatWithdrawal'),
  },
  {
    name: 'a withdrawal the exchange took up still reads pending',
    covers: 'WITHDRAWAL-PROCESSING',
    testControl: true,
    response: withdrawalListed('processing', 'pending'),
  },
  {
    name: 'a processed withdrawal still reads processing',
    covers: 'WITHDRAWAL-PROCESSED',
    testControl: true,
    response: withdrawalListed('processed', 'processing'),
  },
  {
    name: 'a declined withdrawal still reads pending',
    covers: 'WITHDRAWAL-DECLINED',
    testControl: true,
    response: withdrawalListed('declined', 'pending'),
  },
];

const isMarkMove = (request: ProxiedRequest) =>
  request.method === 'POST' && /^\/test\/products\/[^/]+\/mark_price$/.test(pathname(request));

/** What the mark price closes, moved through the sandbox's test control. */
const markFaults: Fault[] = [
  {
    name: 'a mark price that reaches a stop loss closes nothing',
    covers: 'TRADE-STOP-LOSS-AT-MARK',
    testControl: true,
    request: (request) =>
      isMarkMove(request)
        ? { status: 200, headers: { 'content-type': 'application/json' }, body: request.body }
        : request,
  },
  {
    name: "an order's trades are only the one its trade_id names",
    covers: 'TRADE-ORDER-EVERY-TRADE',
    testControl: true,
    response: (request, response) =>
      is(request, 'listOrderTrades') && response.status === 200
        ? withJson(response, (trades) => (trades as Row[]).slice(-1))
        : response,
  },
  {
    name: 'the mark is taken 3% under the price sent, so a long is liquidated early',
    covers: 'TRADE-LIQUIDATED-AT-MARK',
    testControl: true,
    request: (request) =>
      isMarkMove(request)
        ? withBody(request, (body) => ({
            price: new Decimal(String(body.price)).times('0.97').toDecimalPlaces(8).toFixed(),
          }))
        : request,
  },
];

// Runs with test control may move the sandbox's clock a day on (the loans profile's scenarios
// do): they come after the value faults, whose quotes are checked against the wall clock.
export const faults: Fault[] = [
  ...requestFaults,
  ...schemaFaults,
  ...responseFaults,
  ...fieldFaults.filter((fault) => !fault.testControl),
  ...valueFaults,
  ...generatedFaults,
  ...withdrawalFaults,
  ...loanBidFaults,
  ...fieldFaults.filter((fault) => fault.testControl),
  ...borrowingFaults,
  ...tradingAccountFaults,
  clientRefShared(),
  {
    name: 'quantity_2 is not checked against a quote: the server prices the trade itself',
    covers: 'INPUT-QUANTITY-2-NOT-QUOTED',
    request: (request) =>
      is(request, 'intentToTrade')
        ? withBody(request, (body) => {
            delete body.quantity_2;
            return body;
          })
        : request,
  },
  ...oauthStateFaults,
  ...eventFaults,
  ...markFaults,
];

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
