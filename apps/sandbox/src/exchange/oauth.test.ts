import {
  zApproveOAuthRequestResponse,
  zCreateOAuthRequestResponse,
  zGetAccountsResponse,
  zGetUserContextResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { type Client, demoClient, newUser, startTestSandbox, valid } from '../test-support.js';
import { oauthRequestLifetimeMs } from './oauth.js';

let sandbox: RunningSandbox;
let clock = Date.now();
let app: Client;

beforeAll(async () => {
  sandbox = await startTestSandbox({ now: () => clock });
  app = demoClient(sandbox);
});
afterAll(() => sandbox.close());

async function createRequest() {
  return valid(
    zCreateOAuthRequestResponse,
    await app('POST', '/system/oauth_requests', { body: { external_ref: 'campaign-1' } }),
  );
}

const ids = (request: { oauth_request_public_id: string; oauth_request_private_id: string }) => ({
  publicId: request.oauth_request_public_id,
  privateId: request.oauth_request_private_id,
});

describe('OAuth requests', () => {
  it('creates a request whose api_challenge_href approves it on this server', async () => {
    const request = await createRequest();
    expect(request.api_challenge_href).toBe(
      `${sandbox.exchangeUrl}/oauth/${request.oauth_request_private_id}/approve`,
    );
    expect(request.app_challenge_href.startsWith(sandbox.exchangeUrl)).toBe(true);
    expect(request.expires).toBe(Math.floor((clock + oauthRequestLifetimeMs) / 1000));
  });

  it('lets the application read user context and accounts once the user approved', async () => {
    const user = await newUser(sandbox);
    const request = await createRequest();
    const oauth = ids(request);
    const before = await app('GET', '/user/context', { oauth });
    expect(before.status).toBe(401);
    expect(before.body).toBe('API Authentication failed');

    const approvePath = new URL(request.api_challenge_href).pathname;
    const approved = valid(zApproveOAuthRequestResponse, await user.call('POST', approvePath));
    expect(approved.oauth_request_public_id).toBe(request.oauth_request_public_id);

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
    const user = await newUser(sandbox);
    const first = await createRequest();
    const second = await createRequest();
    for (const request of [first, second]) {
      await user.call('POST', new URL(request.api_challenge_href).pathname);
    }
    const mixed = {
      publicId: first.oauth_request_public_id,
      privateId: second.oauth_request_private_id,
    };
    expect((await app('GET', '/accounts', { oauth: mixed })).status).toBe(401);
    const stranger = await newUser(sandbox);
    expect((await stranger.call('GET', '/accounts', { oauth: ids(first) })).status).toBe(401);
  });

  it('answers 404 to approving an unknown request', async () => {
    const user = await newUser(sandbox);
    const answer = await user.call('POST', '/oauth/00000000-0000-4000-8000-000000000000/approve');
    expect(answer.status).toBe(404);
    expect((await user.call('POST', '/oauth/not-a-uuid/approve')).status).toBe(404);
  });

  it('expires: an expired request can be neither approved nor used', async () => {
    const user = await newUser(sandbox);
    const used = await createRequest();
    await user.call('POST', new URL(used.api_challenge_href).pathname);
    const late = await createRequest();
    clock += oauthRequestLifetimeMs + 1000;
    try {
      expect((await user.call('POST', new URL(late.api_challenge_href).pathname)).status).toBe(404);
      const answer = await app('GET', '/user/context', { oauth: ids(used) });
      expect(answer.status).toBe(401);
      expect(answer.body).toBe('API Authentication failed');
    } finally {
      clock -= oauthRequestLifetimeMs + 1000;
    }
  });

  it("answers the user's own context and accounts when called with the user's own token", async () => {
    const user = await newUser(sandbox);
    const context = valid(zGetUserContextResponse, await user.call('GET', '/user/context'));
    expect(context).toMatchObject({ user_id: user.userId, token_id: user.tokenId });
    valid(zGetAccountsResponse, await user.call('GET', '/accounts'));
  });
});
