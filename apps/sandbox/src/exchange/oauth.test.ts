/**
 * The OAuth rules, in memory through the call pipeline: what a request grants, and its
 * request, approve, deny, expire and read flow. The edge's part (the server's own origin in
 * the hrefs, the approval page) is tested over HTTP in `pages/pages.test.ts`, and a denial
 * kept across a restart in `store/durability.test.ts`.
 */
import {
  zApproveOAuthRequestResponse,
  zCreateOAuthRequestResponse,
  zGetAccountsResponse,
  zGetOAuthRequestResponse,
  zGetUserContextResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { denyRequest, oauthRequestLifetimeMs } from './oauth.js';

let sandbox: MemorySandbox;
let clock = Date.now();
let app: Client;

beforeAll(async () => {
  sandbox = await memorySandbox({ now: () => clock });
  app = sandbox.clientFor({
    tokenId: sandbox.credentials.tokenId,
    tokenSecret: sandbox.credentials.tokenSecret,
  });
});

async function createRequest(client = app) {
  return valid(
    zCreateOAuthRequestResponse,
    await client('POST', '/system/oauth_requests', { body: { external_ref: 'campaign-1' } }),
  );
}

const ids = (request: { oauth_request_public_id: string; oauth_request_private_id: string }) => ({
  publicId: request.oauth_request_public_id,
  privateId: request.oauth_request_private_id,
});

/** The request's state as the application that created it reads it. */
async function stateOf(publicId: string, client = app) {
  return valid(zGetOAuthRequestResponse, await client('GET', `/system/oauth_requests/${publicId}`));
}

/** The 401 a call for the user gets when the request does not act for the user, and why. */
const refusedAs = (code: string) => ({
  status: 401,
  body: { errors: { oauth_request_public_id: [code] } },
});

/** Denies a request as its user would at the approval page, as test control does. */
async function deny(publicId: string) {
  const status = await sandbox.sequencer.run((journal) => denyRequest(journal, publicId, clock));
  expect(status).toBe('denied');
}

const newUser = () => sandbox.addUser();

describe('OAuth requests', () => {
  it('creates a request whose hrefs approve it and show its page', async () => {
    const request = await createRequest();
    expect(new URL(request.api_challenge_href).pathname).toBe(
      `/oauth/${request.oauth_request_private_id}/approve`,
    );
    expect(new URL(request.app_challenge_href).pathname).toBe(
      `/oauth/${request.oauth_request_public_id}`,
    );
    expect(request.expires).toBe(Math.floor((clock + oauthRequestLifetimeMs) / 1000));
  });

  it('lets the application read user context and accounts once the user approved', async () => {
    const user = newUser();
    const request = await createRequest();
    const oauth = ids(request);
    expect(await app('GET', '/user/context', { oauth })).toMatchObject(refusedAs('pending'));
    expect(await stateOf(oauth.publicId)).toEqual({
      ...request,
      status: 'pending',
      decided_at: null,
    });

    const approvePath = new URL(request.api_challenge_href).pathname;
    const approved = valid(zApproveOAuthRequestResponse, await user.call('POST', approvePath));
    expect(approved.oauth_request_public_id).toBe(request.oauth_request_public_id);
    expect(await stateOf(oauth.publicId)).toMatchObject({
      status: 'approved',
      decided_at: Math.floor(clock / 1000),
    });

    const context = valid(zGetUserContextResponse, await app('GET', '/user/context', { oauth }));
    expect(context.user_id).toBe(user.userId);
    expect(context.token_id).toBe(sandbox.credentials.tokenId);
    const accounts = valid(zGetAccountsResponse, await app('GET', '/accounts', { oauth }));
    expect(accounts.crypto_accounts.map((account) => account.currency)).toContain('BTC');
    expect(accounts.fiat_accounts[0]?.push_channel).toMatch(
      new RegExp(`^user_${user.userId}_account_`),
    );
    expect(accounts.crypto_accounts.every((a) => a.push_channel === a.pusher_channel)).toBe(true);
  });

  it('refuses ids that do not belong together or to another application', async () => {
    const user = newUser();
    const first = await createRequest();
    const second = await createRequest();
    for (const request of [first, second]) {
      await user.call('POST', new URL(request.api_challenge_href).pathname);
    }
    const mixed = {
      publicId: first.oauth_request_public_id,
      privateId: second.oauth_request_private_id,
    };
    // Ids that do not name one of the signing token's requests learn nothing of any request.
    const failed = { status: 401, body: 'API Authentication failed' };
    expect(await app('GET', '/accounts', { oauth: mixed })).toMatchObject(failed);
    const stranger = newUser();
    expect(await stranger.call('GET', '/accounts', { oauth: ids(first) })).toMatchObject(failed);
    const pending = await createRequest();
    expect(await stranger.call('GET', '/accounts', { oauth: ids(pending) })).toMatchObject(failed);
  });

  it("reads a request's state for the token that created it alone", async () => {
    const request = await createRequest();
    const stranger = newUser();
    const path = `/system/oauth_requests/${request.oauth_request_public_id}`;
    expect(await stranger.call('GET', path)).toMatchObject({
      status: 404,
      body: { message: 'OAuth request not found' },
    });
    const unknown = await app('GET', '/system/oauth_requests/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    // Any spelling of the id names the request.
    const upper = await stateOf(request.oauth_request_public_id.toUpperCase());
    expect(upper.status).toBe('pending');
    const malformed = await app('GET', '/system/oauth_requests/not-a-uuid');
    expect(malformed.status).toBeGreaterThanOrEqual(400);
    expect(malformed.status).toBeLessThan(500);
  });

  it('denies: the ids are refused as denied, never as pending, and cannot be approved', async () => {
    const request = await createRequest();
    await deny(request.oauth_request_public_id);
    const oauth = ids(request);
    expect(await app('GET', '/user/context', { oauth })).toMatchObject(refusedAs('denied'));
    expect(await app('GET', '/accounts', { oauth })).toMatchObject(refusedAs('denied'));
    expect(await stateOf(oauth.publicId)).toMatchObject({
      status: 'denied',
      decided_at: Math.floor(clock / 1000),
    });
    const user = newUser();
    expect((await user.call('POST', `/oauth/${oauth.privateId}/approve`)).status).toBe(404);
  });

  it('answers 404 to approving an unknown request', async () => {
    const user = newUser();
    const answer = await user.call('POST', '/oauth/00000000-0000-4000-8000-000000000000/approve');
    expect(answer.status).toBe(404);
    expect((await user.call('POST', '/oauth/not-a-uuid/approve')).status).toBe(404);
  });

  it('expires: an expired request can be neither approved nor used', async () => {
    const user = newUser();
    const used = await createRequest();
    await user.call('POST', new URL(used.api_challenge_href).pathname);
    const late = await createRequest();
    clock += oauthRequestLifetimeMs + 1000;
    try {
      expect((await user.call('POST', new URL(late.api_challenge_href).pathname)).status).toBe(404);
      expect(await app('GET', '/user/context', { oauth: ids(used) })).toMatchObject(
        refusedAs('expired'),
      );
      expect(await app('GET', '/user/context', { oauth: ids(late) })).toMatchObject(
        refusedAs('expired'),
      );
      expect((await stateOf(used.oauth_request_public_id)).status).toBe('expired');
      expect(await stateOf(late.oauth_request_public_id)).toMatchObject({
        status: 'expired',
        decided_at: null,
      });
    } finally {
      clock -= oauthRequestLifetimeMs + 1000;
    }
  });

  it("answers the user's own context and accounts when called with the user's own token", async () => {
    const user = newUser();
    const context = valid(zGetUserContextResponse, await user.call('GET', '/user/context'));
    expect(context).toMatchObject({ user_id: user.userId, token_id: user.tokenId });
    valid(zGetAccountsResponse, await user.call('GET', '/accounts'));
  });

  it('does only what the grant says: it reads, and trading for the user is refused with 403', async () => {
    const user = newUser();
    const request = await createRequest();
    await user.call('POST', new URL(request.api_challenge_href).pathname);
    const oauth = ids(request);
    const context = valid(zGetUserContextResponse, await app('GET', '/user/context', { oauth }));
    expect(context.permissions).toEqual(['read_accounts', 'read_user']);
    const ordersBefore = await user.call('GET', '/orders');

    const trading: [string, string, unknown?][] = [
      ['POST', '/orders', { order_type: 'market', product_id: 1, side: 'buy', quantity: '0.01' }],
      ['GET', '/orders'],
      ['PUT', '/orders/cancel_all', {}],
      ['PUT', '/orders/1/cancel'],
      ['PUT', '/orders/client:x', { price: '1' }],
    ];
    for (const [method, path, body] of trading) {
      const answer = await app(method, path, { oauth, body });
      expect(answer, `${method} ${path}`).toMatchObject({
        status: 403,
        body: { message: 'This OAuth grant lacks the permission trade' },
      });
    }
    const creating = await app('POST', '/system/oauth_requests', { oauth, body: {} });
    expect(creating).toMatchObject({
      status: 403,
      body: { message: 'createOAuthRequest cannot be called for a user through OAuth' },
    });
    expect((await user.call('GET', '/orders')).body).toEqual(ordersBefore.body);
  });
});
