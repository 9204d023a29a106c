/**
 * A person approves, or denies, an OAuth request in Chromium at its app_challenge_href, and
 * the application sees the outcome through the exchange interface.
 */
import {
  zCreateOAuthRequestResponse,
  zGetOAuthRequestResponse,
  zGetUserContextResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { launchChromium } from '@exchange-kit/test-support/chromium';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { type Client, demoClient, newUser, startTestSandbox, valid } from '../test-support.js';

let sandbox: RunningSandbox;
let browser: Browser;
let app: Client;

beforeAll(async () => {
  [sandbox, browser] = await Promise.all([startTestSandbox(), launchChromium()]);
  app = demoClient(sandbox);
});
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

async function createRequest() {
  const request = valid(
    zCreateOAuthRequestResponse,
    await app('POST', '/system/oauth_requests', { body: { external_ref: 'browser' } }),
  );
  return {
    href: request.app_challenge_href,
    oauth: {
      publicId: request.oauth_request_public_id,
      privateId: request.oauth_request_private_id,
    },
  };
}

async function signIn(href: string, tokenId: string, tokenSecret: string): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  const opened = await page.goto(href);
  expect(opened?.status()).toBe(200);
  await page.getByRole('heading', { name: 'Demo partner asks to act for you' }).waitFor();
  expect(await page.locator('#permissions').textContent()).toMatch(/read_accounts[\s\S]*read_user/);
  await page.getByLabel('API token id').fill(tokenId);
  await page.getByLabel('API token secret').fill(tokenSecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return page;
}

const stateOf = async (publicId: string) =>
  valid(zGetOAuthRequestResponse, await app('GET', `/system/oauth_requests/${publicId}`));

describe('the OAuth approval page in a browser', () => {
  it('signs the second demo user in, approves, and the application acts for that user', async () => {
    const { secondTokenId, secondTokenSecret } = sandbox.credentials;
    const { href, oauth } = await createRequest();
    expect(await app('GET', '/user/context', { oauth })).toMatchObject({
      status: 401,
      body: { errors: { oauth_request_public_id: ['pending'] } },
    });

    const page = await signIn(href, secondTokenId, secondTokenSecret);
    await page.getByText('user 1002.').waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Approved' }).waitFor();
    // The secret typed in is never shown back.
    expect(await page.content()).not.toContain(secondTokenSecret);
    await page.close();

    const context = valid(zGetUserContextResponse, await app('GET', '/user/context', { oauth }));
    expect(context.user_id).toBe(1002);
    expect(context.token_id).toBe(sandbox.credentials.tokenId);
    expect(context.permissions).toEqual(['read_accounts', 'read_user']);
    expect((await stateOf(oauth.publicId)).status).toBe('approved');
  });

  it('denies: the application is told so, and the page says so when opened again', async () => {
    const user = await newUser(sandbox);
    const { href, oauth } = await createRequest();
    const page = await signIn(href, user.tokenId, user.tokenSecret);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('heading', { name: 'Denied' }).waitFor();

    expect(await app('GET', '/user/context', { oauth })).toMatchObject({
      status: 401,
      body: { errors: { oauth_request_public_id: ['denied'] } },
    });
    expect((await stateOf(oauth.publicId)).status).toBe('denied');
    const approve = await user.call('POST', `/oauth/${oauth.privateId}/approve`);
    expect(approve.status).toBe(404);
    const again = await page.goto(href);
    expect(again?.status()).toBe(410);
    await page.getByRole('heading', { name: 'Denied' }).waitFor();
    expect(await page.locator('#outcome').textContent()).toContain('was denied');
    await page.close();
  });

  it('keeps the user on the sign-in form when the secret is wrong', async () => {
    const user = await newUser(sandbox);
    const { href, oauth } = await createRequest();
    const page = await signIn(href, user.tokenId, `${user.tokenSecret}x`);
    await page.getByRole('alert').getByText('do not match').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await page.close();
    expect((await app('GET', '/user/context', { oauth })).status).toBe(401);
  });
});
