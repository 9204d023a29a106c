import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCredentials } from '../config.js';
import type { RunningSandbox } from '../server.js';
import { demoClient, newUser, startTestSandbox } from '../test-support.js';
import { pendingTransaction } from '../testing/pending-transaction.js';
import { escapeHtml } from './html.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ docsUrl: 'http://127.0.0.1:4173/' });
});
afterAll(() => sandbox.close());

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

const formToken = (page: string) => /name="form_token" value="([^"]+)"/.exec(page)?.[1] ?? '';

async function openRequest(): Promise<{ href: string; publicId: string }> {
  const answer = await demoClient(sandbox)('POST', '/system/oauth_requests', { body: {} });
  const request = answer.body as { app_challenge_href: string; oauth_request_public_id: string };
  return { href: request.app_challenge_href, publicId: request.oauth_request_public_id };
}

describe('pages for people', () => {
  it('answers / with links to the console, the docs, both specs and health, each of which answers', async () => {
    const index = await fetch(`${sandbox.exchangeUrl}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const text = await index.text();
    expect(text).toContain('href="http://127.0.0.1:4173/"');
    const links = [...text.matchAll(/href="(\/[^"]*)"/g)].map((match) => match[1]);
    expect(links).toEqual([
      '/console',
      '/openapi/exchange.json',
      '/openapi/partner.json',
      '/health',
    ]);
    for (const link of links) {
      const answer = await fetch(`${sandbox.exchangeUrl}${link}`);
      expect(answer.status, link).toBe(200);
    }
    expect(await (await fetch(`${sandbox.exchangeUrl}/health`)).json()).toEqual({ status: 'ok' });
    // The console runs its own script alone, and connects back to the sandbox alone.
    const console = await fetch(`${sandbox.exchangeUrl}/console`);
    expect(console.headers.get('content-security-policy')).toMatch(
      /default-src 'none'.*script-src 'self'; connect-src 'self'/,
    );
    const script = await fetch(`${sandbox.exchangeUrl}/console.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${sandbox.partnerUrl}/api/v1`)).status).toBe(200);
  });

  it('answers the icon a browser asks for on every page, on both interfaces', async () => {
    for (const base of [sandbox.exchangeUrl, sandbox.partnerUrl]) {
      const icon = await fetch(`${base}/favicon.ico`);
      expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
      expect(await icon.text()).toMatch(/^<svg /);
    }
  });

  it('answers HEAD as GET on every page, and another method with 405 and Allow', async () => {
    const { href } = await openRequest();
    for (const url of [
      `${sandbox.exchangeUrl}/`,
      `${sandbox.exchangeUrl}/health`,
      `${sandbox.exchangeUrl}/favicon.ico`,
      href,
    ]) {
      const get = await fetch(url);
      const head = await fetch(url, { method: 'HEAD' });
      expect([url, head.status, head.headers.get('content-type')]).toEqual([
        url,
        get.status,
        get.headers.get('content-type'),
      ]);
      expect(await head.text()).toBe('');
    }
    for (const path of ['/', '/health', '/favicon.ico']) {
      const refused = await fetch(`${sandbox.exchangeUrl}${path}`, { method: 'DELETE' });
      expect([path, refused.status, refused.headers.get('allow')]).toEqual([
        path,
        405,
        'GET, HEAD',
      ]);
    }
    const put = await fetch(href, { method: 'PUT' });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD, POST']);
  });

  it("names the server's own origin in an OAuth request's hrefs", async () => {
    const answer = await demoClient(sandbox)('POST', '/system/oauth_requests', { body: {} });
    const request = answer.body as {
      api_challenge_href: string;
      app_challenge_href: string;
      oauth_request_public_id: string;
      oauth_request_private_id: string;
    };
    expect(request.api_challenge_href).toBe(
      `${sandbox.exchangeUrl}/oauth/${request.oauth_request_private_id}/approve`,
    );
    expect(request.app_challenge_href).toBe(
      `${sandbox.exchangeUrl}/oauth/${request.oauth_request_public_id}`,
    );
  });

  it('serves the approval page without CORS, so no other origin reads its form token', async () => {
    const { href } = await openRequest();
    const page = await fetch(href, { headers: { origin: 'https://elsewhere.example' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('refuses a POST without the token of a form it issued, and a token used twice', async () => {
    const user = await newUser(sandbox);
    const { href } = await openRequest();
    const credentials = { token_id: user.tokenId, token_secret: user.tokenSecret };
    const forged = await fetch(href, form({ form_token: 'guessed', ...credentials }));
    expect(forged.status).toBe(403);

    const token = formToken(await (await fetch(href)).text());
    const signedIn = await fetch(href, form({ form_token: token, ...credentials }));
    expect(signedIn.status).toBe(200);
    const decideToken = formToken(await signedIn.text());
    const replayed = await fetch(href, form({ form_token: token, ...credentials }));
    expect(replayed.status).toBe(403);
    // A sign-in form's token does not stand in for the decision form's.
    const skipped = await fetch(
      href,
      form({ form_token: formToken(await (await fetch(href)).text()), decision: 'approve' }),
    );
    expect(skipped.status).toBe(401);
    const approved = await fetch(href, form({ form_token: decideToken, decision: 'approve' }));
    expect(await approved.text()).toContain('<h1>Approved</h1>');
  });

  it('signs in either demo user, so the second can approve what the first asked', async () => {
    const users: [id: string, secret: string, name: string][] = [
      [defaultCredentials.tokenId, defaultCredentials.tokenSecret, 'Demo Sandbox'],
      [
        defaultCredentials.secondTokenId,
        defaultCredentials.secondTokenSecret,
        'Second demo Sandbox',
      ],
    ];
    for (const [token_id, token_secret, name] of users) {
      const { href } = await openRequest();
      const token = formToken(await (await fetch(href)).text());
      const signedIn = await fetch(href, form({ form_token: token, token_id, token_secret }));
      expect(signedIn.status).toBe(200);
      const page = await signedIn.text();
      expect(page).toContain(name);
      const decided = await fetch(href, form({ form_token: formToken(page), decision: 'approve' }));
      expect(await decided.text()).toContain('<h1>Approved</h1>');
    }
  });

  it('escapes what it shows: a partner application name cannot inject markup', async () => {
    const { href } = await openRequest();
    await sandbox.database.transaction((tx) =>
      tx.query("UPDATE partner_applications SET name = '<script>alert(1)</script> & Co'"),
    );
    try {
      const text = await (await fetch(href)).text();
      expect(text).not.toContain('<script>');
      expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co asks to act for you');
    } finally {
      await sandbox.database.transaction((tx) =>
        tx.query("UPDATE partner_applications SET name = 'Demo partner'"),
      );
    }
    expect(escapeHtml(`"'<>&`)).toBe('&quot;&#39;&lt;&gt;&amp;');
  });

  it('answers 404 for an unknown or malformed request id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '%E0%A4%A']) {
      const answer = await fetch(`${sandbox.exchangeUrl}/oauth/${id}`);
      expect(answer.status, id).toBe(404);
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
  });
});

describe('the console session', () => {
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${sandbox.exchangeUrl}/console/api/${path}`, init);
  const json = async (answer: Response) => ({
    status: answer.status,
    body: (await answer.json()) as Record<string, unknown>,
  });

  it('names the demo users, and whether test control is on', async () => {
    expect(await json(await api('session'))).toEqual({
      status: 200,
      body: {
        users: [
          { user_id: 1001, email: expect.any(String) },
          { user_id: 1002, email: expect.any(String) },
        ],
        test_control: false,
      },
    });
  });

  it("reads the exchange as a demo user, as the user's signed call is answered", async () => {
    const signed = await demoClient(sandbox)('GET', '/accounts');
    expect(await json(await api('users/1001/exchange/accounts'))).toEqual({
      status: 200,
      body: signed.body,
    });
    // The query goes along, and is checked as the interface checks it.
    const refused = await json(await api('users/1001/exchange/orders?status=sideways'));
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.errors as object)).toEqual(['status']);
    expect((await api('users/1001/exchange/no_such_read')).status).toBe(404);
    // The user reads the exchange alone: a partner read is the partner's.
    const partnerRead = 'users/1001/exchange/api/v1/partner/pk_sandbox_demo/transactions';
    expect((await api(partnerRead)).status).toBe(404);
    expect((await api('users/1001/exchange/orders', { method: 'POST' })).status).toBe(405);
  });

  it('acts for the demo users alone', async () => {
    const someone = await newUser(sandbox);
    for (const path of [`users/${someone.userId}/exchange/accounts`, 'users/1/realtime']) {
      expect((await api(path, { method: path.endsWith('realtime') ? 'POST' : 'GET' })).status).toBe(
        404,
      );
    }
  });

  it('issues a realtime JWT, one past the token nonce, holding no secret', async () => {
    const issued = await json(await api('users/1002/realtime', { method: 'POST' }));
    expect(issued.status).toBe(200);
    const jwt = String(issued.body.jwt);
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString());
    expect(payload).toEqual({
      token_id: defaultCredentials.secondTokenId,
      path: '/realtime',
      nonce: expect.stringMatching(/^[0-9]+$/),
    });
    expect(jwt).not.toContain(defaultCredentials.secondTokenSecret);
    expect((await api('users/1002/realtime')).status).toBe(405);
  });

  it("lists the demo partner's transactions", async () => {
    const id = await pendingTransaction(sandbox.partnerUrl, defaultCredentials.publicApiKey);
    const listed = await json(await api('partner/transactions'));
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(id);
  });

  it('answers its own origin only', async () => {
    const elsewhere: Record<string, string>[] = [
      { origin: 'http://elsewhere.example' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of elsewhere) {
      expect((await api('users/1001/exchange/accounts', { headers })).status).toBe(403);
      expect((await api('users/1001/realtime', { method: 'POST', headers })).status).toBe(403);
    }
    const origin = sandbox.exchangeUrl;
    expect((await api('session', { headers: { origin } })).status).toBe(200);
  });
});
