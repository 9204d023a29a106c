import { operationTable } from '@exchange-kit/contract/exchange';
import { type OAuthRequestIds, serviceAuthPayload, signServiceAuth } from '@exchange-kit/core/auth';
import { type OrderRef, restingBuy } from '../engine/adapter.js';
import { type Auth, bodyOf, expectStatus } from '../engine/context.js';
import { Failure, fixtureFailed, SetupError } from '../engine/outcome.js';
import { forgeJwt } from '../signing/forge.js';
import { approvedRequest } from './oauth-grant.js';
import { expectUnchanged, orderState } from './orders.js';
import { example } from './partner.js';
import type { Scenario, ScenarioContext } from './scenario.js';

const refused = '401: the forged call is refused';

const custom = (
  headers: (requestPath: string) => Promise<Record<string, string>> | Record<string, string>,
): Auth => ({
  kind: 'custom',
  headers: async (requestPath) => headers(requestPath),
});

interface CancelAttack {
  id: string;
  auth: (context: ScenarioContext, order: OrderRef, other: OrderRef) => Auth;
  query?: Record<string, string>;
}

const cancelAttacks: CancelAttack[] = [
  { id: 'AUTH-MISSING-HEADER', auth: () => ({ kind: 'none' }) },
  {
    id: 'AUTH-BAD-SIGNATURE',
    auth: (context) =>
      custom((path) => ({
        'X-Service-Auth': forgeJwt(serviceAuthPayload(context.target, { path }), {
          secret: `${context.target.tokenSecret}-not`,
        }),
      })),
  },
  {
    id: 'AUTH-ALG-NONE',
    auth: (context) =>
      custom((path) => ({
        'X-Service-Auth': forgeJwt(serviceAuthPayload(context.target, { path }), { alg: 'none' }),
      })),
  },
  {
    id: 'AUTH-ALG-OTHER',
    auth: (context) =>
      custom((path) => ({
        'X-Service-Auth': forgeJwt(serviceAuthPayload(context.target, { path }), {
          alg: 'HS512',
          secret: context.target.tokenSecret,
        }),
      })),
  },
  {
    id: 'AUTH-NONCE-SMALLER',
    // The calls just before were accepted with nonces of about now; one a minute old is smaller.
    auth: (context) =>
      custom((path) => ({
        'X-Service-Auth': forgeJwt(
          { token_id: context.target.tokenId, path, nonce: Date.now() - 60_000 },
          { secret: context.target.tokenSecret },
        ),
      })),
  },
  {
    id: 'AUTH-PATH-MISMATCH',
    auth: (context, _order, other) =>
      custom(async () => ({
        'X-Service-Auth': await signServiceAuth(context.target, {
          path: `/orders/${other.id}/cancel`,
        }),
      })),
  },
  {
    id: 'AUTH-QUERY-MISMATCH',
    query: { conformance: 'query-not-signed' },
    auth: (context) =>
      custom(async (path) => ({
        'X-Service-Auth': await signServiceAuth(context.target, {
          path: path.split('?')[0] ?? path,
        }),
      })),
  },
];

const orderAttacks: Scenario = {
  name: 'forged calls against a live order',
  profile: 'auth',
  requires: ['orders'],
  covers: [...cancelAttacks.map((attack) => attack.id), 'AUTH-NONCE-REPLAYED'],
  async run(context) {
    const order = await context.liveOrder({});
    const other = await context.liveOrder({ side: 'sell' });
    for (const attack of cancelAttacks) {
      const before = await orderState(context, order);
      const answered = await context.caller.call('cancelOrder', {
        path: { order_id: String(order.id) },
        query: attack.query,
        auth: attack.auth(context, order, other),
      });
      await context.evidence.check(attack.id, async () => {
        expectStatus(answered, 401, refused);
        await expectUnchanged(context, order, before, answered);
        if (attack.id === 'AUTH-PATH-MISMATCH')
          await expectUnchanged(context, other, await orderState(context, other), answered);
        return 'refused with 401, the order unchanged';
      });
    }

    // A JWT that was accepted once, sent again with another body (the body is not signed).
    const market = await context.market();
    const before = await orderState(context, order);
    let captured = '';
    const accepted = await context.caller.call('editOrder', {
      path: { order_id: String(order.id) },
      body: { price: String(before.price) },
      auth: custom(async (path) => {
        captured = await signServiceAuth(context.target, { path });
        return { 'X-Service-Auth': captured };
      }),
    });
    if (accepted.status !== 200)
      throw new SetupError(`a valid edit to replay answered ${accepted.status}`, accepted);
    const replayed = await context.caller.call('editOrder', {
      path: { order_id: String(order.id) },
      body: {
        price:
          market.primary.restingBuyPrice === String(before.price)
            ? String(Number(before.price) - 1)
            : market.primary.restingBuyPrice,
      },
      auth: custom(() => ({ 'X-Service-Auth': captured })),
    });
    await context.evidence.check('AUTH-NONCE-REPLAYED', async () => {
      expectStatus(replayed, 401, refused);
      await expectUnchanged(context, order, before, replayed);
      return 'the replayed JWT was refused, the order unchanged';
    });
  },
};

/**
 * A POST /orders JWT without nonce, captured once it placed its order, sent again with another
 * order: the body is not signed, so a server that takes it twice places whatever its holder
 * sends.
 */
const nonceLessReplay: Scenario = {
  name: 'an order JWT without nonce sent again with another order',
  profile: 'auth',
  requires: ['orders'],
  covers: ['AUTH-NONCE-LESS-REPLAYED'],
  async run(context) {
    const { primary } = await context.market();
    const order = (clientOrderId: string) => restingBuy(primary, clientOrderId);
    let captured = '';
    const accepted = await context.caller.call('createOrder', {
      body: order(context.clientOrderId()),
      auth: custom(async (path) => {
        captured = await signServiceAuth(context.target, { path, withoutNonce: true });
        return { 'X-Service-Auth': captured };
      }),
    });
    if (accepted.status !== 200)
      throw new SetupError(`an order signed without nonce answered ${accepted.status}`, accepted);
    const second = context.clientOrderId();
    const replayed = await context.caller.call('createOrder', {
      body: order(second),
      auth: custom(() => ({ 'X-Service-Auth': captured })),
    });
    await context.evidence.check('AUTH-NONCE-LESS-REPLAYED', async () => {
      expectStatus(replayed, 401, refused);
      const read = await context.caller.call('getOrderByClientId', {
        path: { client_order_id: second },
      });
      if (read.status !== 404) {
        throw new Failure(`the replayed JWT placed order ${second}`, {
          received: `GET /orders/client:${second} answered ${read.status}`,
          documented: 'no order placed',
          call: replayed,
        });
      }
      return 'the replayed JWT was refused, no second order placed';
    });
  },
};

const oauthAttack: Scenario = {
  name: 'OAuth ids of a request nobody approved',
  profile: 'auth',
  requires: ['oauth'],
  covers: ['AUTH-OAUTH-UNAPPROVED'],
  async run(context) {
    const created = await context.caller.call('createOAuthRequest', {
      body: { external_ref: `${context.runId}-unapproved` },
    });
    if (created.status !== 200) throw fixtureFailed('creating an OAuth request', created, 'oauth');
    const request = bodyOf(created);
    const ids = {
      publicId: String(request.oauth_request_public_id),
      privateId: String(request.oauth_request_private_id),
    };
    const answered = await context.caller.call('getUserContext', { auth: { kind: 'oauth', ids } });
    await context.evidence.check('AUTH-OAUTH-UNAPPROVED', async () => {
      expectStatus(answered, 401, refused);
      return 'refused with 401';
    });
  },
};

/** An approved OAuth request of this run: its ids, and the permissions its grant lists. */
async function approvedGrant(context: ScenarioContext) {
  const ids = await approvedRequest(context, `${context.runId}-grant`);
  const read = await context.caller.call('getUserContext', { auth: { kind: 'oauth', ids } });
  if (read.status !== operationTable.getUserContext.status)
    throw new SetupError(
      `reading the user context through the grant answered ${read.status}`,
      read,
    );
  const permissions = bodyOf(read).permissions;
  return { ids, permissions: Array.isArray(permissions) ? permissions.map(String) : [] };
}

/**
 * An operation that takes no delegated call at all (no permission in the spec), the grant's
 * own OAuth request read through the grant: 403, as a grant lacking a permission is.
 */
async function noDelegatedCall(context: ScenarioContext, ids: OAuthRequestIds): Promise<string> {
  if (operationTable.getOAuthRequest.permission !== null) return '';
  const answered = await context.caller.call('getOAuthRequest', {
    path: { oauth_request_public_id: ids.publicId },
    auth: { kind: 'oauth', ids },
  });
  expectStatus(answered, 403, '403: getOAuthRequest takes no delegated call');
  return '; getOAuthRequest, which takes no delegated call, refused with 403 through the grant';
}

const beyondGrant: Scenario = {
  name: 'a call through an OAuth grant that lacks the permission the operation states',
  profile: 'auth',
  requires: ['oauth'],
  covers: ['AUTH-OAUTH-BEYOND-GRANT'],
  async run(context) {
    const { ids, permissions } = await approvedGrant(context);
    const needed = operationTable.cancelOrder.permission;
    if (needed === null || permissions.includes(needed)) {
      context.evidence.record({
        requirementId: 'AUTH-OAUTH-BEYOND-GRANT',
        outcome: 'skip',
        message: `the grant lists ${permissions.join(', ') || 'nothing'}, so it covers cancelOrder (${needed}): nothing lies beyond it to try`,
      });
      return;
    }
    const order = await context.liveOrder({});
    const before = await orderState(context, order);
    const answered = await context.caller.call('cancelOrder', {
      path: { order_id: String(order.id) },
      auth: { kind: 'oauth', ids },
    });
    await context.evidence.check('AUTH-OAUTH-BEYOND-GRANT', async () => {
      expectStatus(answered, 403, `403 naming the missing permission ${needed}`);
      const message = String(bodyOf(answered).message ?? '');
      if (!message.includes(needed)) {
        throw new Failure(`the 403 does not name the missing permission ${needed}`, {
          received: answered.responseText.slice(0, 300),
          documented: `a message naming ${needed}`,
          call: answered,
        });
      }
      await expectUnchanged(context, order, before, answered);
      const none = await noDelegatedCall(context, ids);
      return `refused with 403 naming ${needed}; the order unchanged${none}`;
    });
  },
};

const partnerAttack: Scenario = {
  name: 'a partner JWT whose delegate_path names another path',
  profile: 'auth',
  requires: ['partner-sessions'],
  covers: ['AUTH-PARTNER-DELEGATE-PATH'],
  async run(context) {
    const key = context.target.publicApiKey;
    const answered = await context.caller.call('createIntent', {
      path: { public_api_key: key },
      body: {
        ...example('createIntent', 'paymentRequest'),
        public_api_key: key,
        partner_order_id: `${context.runId}-forged`,
      },
      auth: custom(async () => ({
        'X-Service-Auth': await signServiceAuth(context.target, {
          path: `/api/v1/partner/${encodeURIComponent(key)}/transactions`,
          delegate: true,
        }),
      })),
    });
    await context.evidence.check('AUTH-PARTNER-DELEGATE-PATH', async () => {
      expectStatus(answered, 401, refused);
      return 'refused with 401';
    });
  },
};

export const authScenarios: Scenario[] = [
  orderAttacks,
  nonceLessReplay,
  oauthAttack,
  beyondGrant,
  partnerAttack,
];
