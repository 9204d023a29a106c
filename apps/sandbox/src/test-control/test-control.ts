import type { IncomingMessage } from 'node:http';
import { routeMatcher } from '@exchange-kit/contract/spec-reader';
import { DomainError, NotFound } from '../handling/errors.js';
import { notAllowed, type Serialized, uncachedJson } from '../http/reply-cache.js';
import type { Sequencer } from '../state/sequencer.js';
import { advanceClock } from './clock-control.js';
import { refused } from './control-answers.js';
import { type ControlRoute, controlRoute, parameterKinds } from './control-route.js';
import { creditReceivedDeposit, moveWithdrawalState } from './funding-control.js';
import { borrowFromBid, repayHouseLoan } from './loan-control.js';
import { setMarkPrice } from './mark-price-control.js';
import { denyOAuthRequest } from './oauth-control.js';
import type { TestClock } from './test-clock.js';
import { endTransaction } from './transaction-control.js';
import { addTestUser } from './user-control.js';

/**
 * The sandbox's test-control endpoints, for tests and tools that need a move the interfaces
 * leave to the exchange itself. Served only when the sandbox starts with `--test-control`;
 * each handler's file says what its call does.
 */
export interface TestControlOptions {
  sequencer: Sequencer;
  clock: TestClock;
}

/**
 * Every test-control path, matched here alone: a path parameter is read as its kind says, or
 * refused naming it, before any handler runs.
 */
const controlRoutes: readonly ControlRoute[] = [
  controlRoute(
    'POST',
    '/test/transactions/{transaction_id}/status',
    { transaction_id: 'uuid' },
    ['status'],
    endTransaction,
  ),
  controlRoute('POST', '/test/clock', {}, ['advance_seconds'], advanceClock),
  controlRoute(
    'POST',
    '/test/oauth_requests/{oauth_request_public_id}/deny',
    { oauth_request_public_id: 'uuid' },
    [],
    denyOAuthRequest,
  ),
  controlRoute(
    'POST',
    '/test/withdrawals/{withdrawal_id}/state',
    { withdrawal_id: 'integer' },
    ['state'],
    moveWithdrawalState,
  ),
  controlRoute(
    'POST',
    '/test/deposits',
    {},
    ['user_id', 'currency', 'amount'],
    creditReceivedDeposit,
  ),
  controlRoute(
    'POST',
    '/test/products/{product_id}/mark_price',
    { product_id: 'integer' },
    ['price'],
    setMarkPrice,
  ),
  controlRoute(
    'POST',
    '/test/loan_bids/{loan_bid_id}/borrow',
    { loan_bid_id: 'integer' },
    ['quantity'],
    borrowFromBid,
  ),
  controlRoute('POST', '/test/loans/{loan_id}/repay', { loan_id: 'integer' }, [], repayHouseLoan),
  controlRoute('POST', '/test/users', {}, ['first_name'], addTestUser),
];

/** Every test-control route as `POST /test/clock`: what the start-up banner lists. */
export const controlPaths = controlRoutes.map((route) => `${route.method} ${route.path}`);

const findControl = routeMatcher(controlRoutes);
const controlMethods = [...new Set(controlRoutes.map((route) => route.method))];

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let text = '';
  for await (const chunk of request) {
    text += chunk;
    if (text.length > 4096) return undefined;
  }
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The path parameters read as their route's kinds, or the refusal of the first that is not. */
function readParameters(
  route: ControlRoute,
  path: Record<string, string>,
): { params: Record<string, unknown> } | { refusal: Serialized } {
  const params: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(route.params)) {
    const value = parameterKinds[kind].read(path[name] ?? '');
    if (value === undefined) return { refusal: refused(name, parameterKinds[kind].code) };
    params[name] = value;
  }
  return { params };
}

/** Answers the test-control paths; undefined for any other, which the interfaces answer. */
export function testControl(options: TestControlOptions) {
  return async (request: IncomingMessage, pathname: string): Promise<Serialized | undefined> => {
    if (!pathname.startsWith('/test/')) return undefined;
    const found = findControl(request.method ?? 'GET', pathname);
    if (found.kind === 'not-found') {
      const allowed = controlMethods.filter(
        (method) => findControl(method, pathname).kind !== 'not-found',
      );
      return allowed.length > 0
        ? notAllowed(allowed.join(', '), `Test control takes ${allowed.join(', ')}`)
        : uncachedJson(404, { message: `No test control at ${pathname}` });
    }
    const body = await readJson(request);
    if (!body) return uncachedJson(400, { message: 'The body must be a JSON object' });
    if (found.kind === 'bad-encoding') {
      return refused(found.parameter, 'must_be_valid_percent_encoding');
    }
    const read = readParameters(found.route, found.path);
    if ('refusal' in read) return read.refusal;
    // A key the call does not take is a mistake of the caller's, refused as the interfaces
    // refuse one, rather than taken for the call without it.
    const unknown = Object.keys(body).filter((key) => !found.route.fields.includes(key));
    if (unknown.length > 0) {
      const errors = Object.fromEntries(unknown.map((key) => [key, ['unknown_field']]));
      return uncachedJson(422, { errors });
    }
    try {
      return await found.route.handle({ ...options, params: read.params, body });
    } catch (error) {
      if (error instanceof NotFound) return uncachedJson(404, { message: error.message });
      if (error instanceof DomainError) return uncachedJson(422, { errors: error.errors ?? {} });
      throw error;
    }
  };
}
