/**
 * The built site in headless Chromium, served beside a real sandbox: the home page, a guide per
 * audience, an operation's reference page, the state tables, search, and the live buy flow.
 * A screenshot of each goes to test-output/site/.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  advanceSandboxClock,
  type SandboxProcess,
  startSandboxProcess,
  unusedPort,
} from '@exchange-kit/sandbox/testing';
import { launchChromium } from '@exchange-kit/test-support/chromium';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DocsServer, distDir, startDocsServer } from '../src/serve.js';
import { sandboxForTests } from './sandbox.js';

const screenshots = fileURLToPath(new URL('../test-output/site/', import.meta.url));
let sandbox: SandboxProcess;
let docs: DocsServer;
let browser: Browser;

beforeAll(async () => {
  await mkdir(screenshots, { recursive: true });
  [sandbox, browser] = await Promise.all([sandboxForTests(), launchChromium()]);
  docs = await startDocsServer({
    sandboxUrl: sandbox.partnerUrl,
    publicApiKey: sandbox.publicApiKey,
  });
});

afterAll(async () => {
  await browser?.close();
  await docs?.close();
  await sandbox?.stop();
});

async function open(path: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  (page as Page & { errors: string[] }).errors = errors;
  await page.goto(new URL(path, docs.url).href);
  // Buttons do nothing until Vue has hydrated the page, which may come well after `load` on a
  // busy machine: a click before it is lost.
  await page.waitForFunction(
    () => (document.querySelector('#app') as { __vue_app__?: unknown } | null)?.__vue_app__,
  );
  return page;
}

/** On the live page: terms accepted, the purchase made, USDC chosen, a wallet typed in. */
async function buyUpToTheWallet(page: Page): Promise<void> {
  await page.getByLabel('I accept the terms of service').check();
  await page.getByRole('button', { name: 'Buy 0.01 BTC with USDC' }).click();
  await page.locator('.status', { hasText: 'SETTLEMENT_METHOD_REQUIRED' }).waitFor();
  await page.getByRole('button', { name: 'Pay by USDC transfer' }).click();
  const wallet = page.getByLabel('Your BTC wallet address');
  const payout = page.getByRole('button', { name: 'Receive to my BTC wallet' });
  await wallet.or(payout).first().waitFor();
  if (await payout.isVisible()) await payout.click();
  await wallet.fill('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq');
}

const shoot = (page: Page, name: string) =>
  page.screenshot({ path: `${screenshots}${name}.png`, fullPage: false });

describe('the built site', () => {
  it('home page leads to the four guides', async () => {
    const page = await open('/');
    await page.getByText('One contract, typed clients').waitFor();
    const guides = {
      'Backend teams': 'backend',
      'Frontend teams': 'frontend',
      'Server implementers': 'server',
      Contributors: 'contributing',
    };
    for (const [audience, slug] of Object.entries(guides)) {
      const card = page.locator('a.VPFeature', { hasText: audience });
      await expect(card.getAttribute('href')).resolves.toBe(`/guide/${slug}.html`);
    }
    await shoot(page, 'home');
  });

  it('shows a sample given whole without the region markers its parts are cut along', async () => {
    const page = await open('/guide/frontend.html');
    const code = await page.locator('div[class*="language-"] pre').allTextContents();
    const whole = code.find(
      (text) => text.includes('export function BuyApp') && text.includes('function BuyFlow'),
    );
    expect(whole).toContain('useTransaction(');
    expect(code.join('\n')).not.toMatch(/#(end)?region/);
    await page.close();
  });

  it('declares an icon that the site serves', async () => {
    const page = await open('/');
    const href = await page.locator('head link[rel="icon"]').getAttribute('href');
    const icon = await fetch(new URL(href ?? '/favicon.ico', docs.url));
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    await page.close();
  });

  const guides = [
    ['backend', 'Backend guide', 'createExchangeClient'],
    ['reconcile', 'A bot that reconciles', 'iterateTransactions'],
    ['frontend', 'Frontend guide', 'QuickExchangeProvider'],
    ['server', 'Server implementers', 'runConformance'],
    ['contributing', 'Contributors', 'npx -y pnpm@10.34.9 codegen'],
  ] as const;
  for (const [slug, title, code] of guides) {
    it(`${slug} guide shows its compiled samples`, async () => {
      const page = await open(`/guide/${slug}.html`);
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
      await expect(page.locator('.vp-doc').textContent()).resolves.toContain(code);
      await shoot(page, `guide-${slug}`);
    });
  }

  it('reference page of PUT /orders/{order_id}/cancel', async () => {
    const page = await open('/reference/exchange/cancelOrder.html');
    await page.getByRole('heading', { level: 1, name: 'PUT /orders/{order_id}/cancel' }).waitFor();
    const text = (await page.locator('.vp-doc').textContent()) ?? '';
    expect(text).toContain('x-source: described');
    expect(text).toContain('ServiceAuthPayload');
    for (const status of ['200', '401', '404', '429']) {
      await page.getByRole('heading', { level: 3, name: status }).first().waitFor();
    }
    expect(text).toContain('"status": "cancelled"');
    await page.getByRole('link', { name: 'ORDER-CANCEL-LIVE' }).first().waitFor();
    await shoot(page, 'reference-cancel-order');
  });

  it('state tables link each row to the conformance check that covers it', async () => {
    const page = await open('/reference/state-tables.html');
    await page.getByRole('heading', { level: 1, name: 'State tables' }).waitFor();
    const link = page.getByRole('link', { name: 'ORDER-CANCEL-LIVE', exact: true });
    await shoot(page, 'state-tables');
    await link.click();
    await page.waitForURL(/\/reference\/conformance\.html#order-cancel-live$/);
    await page.locator('#order-cancel-live').waitFor({ state: 'attached' });
    // Every anchor the state tables link to exists on the conformance page.
    const tables = await readFile(`${distDir}reference/state-tables.html`, 'utf8');
    const conformance = await readFile(`${distDir}reference/conformance.html`, 'utf8');
    const anchors = [...tables.matchAll(/conformance\.html#([a-z0-9-]+)/g)].map((m) => m[1]);
    expect(anchors.length).toBeGreaterThan(10);
    for (const anchor of anchors) expect(conformance).toContain(`id="${anchor}"`);
  });

  it('search for cancel_all finds its page', async () => {
    const page = await open('/');
    await page.locator('.VPNavBarSearch button').click();
    await page.locator('.VPLocalSearchBox input').fill('cancel_all');
    const hit = page.locator('.VPLocalSearchBox .result[href*="cancelAllOrders"]').first();
    await hit.waitFor();
    await shoot(page, 'search-cancel-all');
    await hit.click();
    await page.getByRole('heading', { level: 1, name: 'PUT /orders/cancel_all' }).waitFor();
  });

  it('live page says how to reach a sandbox when the site is served without one', async () => {
    const alone = await startDocsServer();
    try {
      const page = await browser.newPage();
      await page.goto(new URL('/live.html', alone.url).href);
      await page.getByRole('alert').getByText('No sandbox to talk to').waitFor({ timeout: 15_000 });
      await page.close();
    } finally {
      await alone.close();
    }
  });

  it('live page runs the buy flow against the sandbox to PENDING, with no token', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const calls: { path: string; token: boolean; session: boolean }[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (!pathname.startsWith('/api/')) return;
      const headers = request.headers();
      calls.push({
        path: `${request.method()} ${pathname}`,
        token: 'x-service-auth' in headers,
        session: headers.authorization?.startsWith('Bearer ') ?? false,
      });
    });
    await page.goto(new URL('/live.html', docs.url).href);
    await page.getByTestId('session').getByText('SANDBOX session').waitFor({ timeout: 30_000 });
    await buyUpToTheWallet(page);
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('.status', { hasText: 'PENDING' }).waitFor();
    await page.getByTestId('countdown').waitFor();
    await expect(page.getByTestId('funding').textContent()).resolves.toMatch(
      /^Send \S+ USDC to \S+ within \d+ s\.$/,
    );
    await shoot(page, 'live-pending');
    expect(errors).toEqual([]);
    expect(calls.filter((c) => c.path === 'POST /api/v1/session')).toHaveLength(1);
    expect(calls.filter((c) => c.path === 'POST /api/v1/transaction/intent_to_trade')).toHaveLength(
      1,
    );
    // Nothing the page sends is signed with a token, and it never calls the partner's own
    // endpoints; the session's calls carry the session's JWT, opening it does not.
    expect(calls.filter((c) => c.token || c.path.includes('/partner/'))).toEqual([]);
    expect(calls.filter((c) => c.path !== 'POST /api/v1/session').every((c) => c.session)).toBe(
      true,
    );
    expect(calls.find((c) => c.path === 'POST /api/v1/session')?.session).toBe(false);
  });

  it('live page on a sandbox that never settles: one Submit for a double click, and a PENDING instruction that stands past its countdown', async () => {
    const slow = await startSandboxProcess(60_000, ['--settle-after', 'never']);
    const served = await startDocsServer({
      sandboxUrl: slow.partnerUrl,
      publicApiKey: slow.publicApiKey,
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      page.setDefaultTimeout(15_000);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      let submits = 0;
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/api/v1/settlement/parameters') submits += 1;
      });
      await page.clock.install();
      await page.goto(new URL('/live.html', served.url).href);
      await page.getByTestId('session').getByText('SANDBOX session').waitFor({ timeout: 30_000 });
      await buyUpToTheWallet(page);
      await page.getByRole('button', { name: 'Submit' }).dblclick();
      await page.locator('.status', { hasText: 'PENDING' }).waitFor();
      await page.getByTestId('countdown').waitFor();
      expect(submits).toBe(1);
      const flow = page.getByTestId('live-root');
      await expect(flow.getByRole('alert').count()).resolves.toBe(0);

      // The countdown runs out on the sandbox's clock and the page's; PENDING, nothing is requoted.
      await advanceSandboxClock(slow, 25);
      await page.clock.fastForward('00:25');
      await page.getByTestId('countdown').waitFor({ state: 'detached' });
      await expect(page.getByTestId('funding').textContent()).resolves.toMatch(
        /^Send \S+ USDC to \S+[^.]\.$/,
      );
      await expect(page.locator('.status').textContent()).resolves.toBe('PENDING');
      await expect(flow.getByText('price expired').count()).resolves.toBe(0);
      await expect(flow.getByRole('button', { name: 'Get a new price' }).count()).resolves.toBe(0);
      await shoot(page, 'live-pending-past-countdown');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await served.close();
      await slow.stop();
    }
  });

  it('live page loaded while the sandbox is down opens the session once it is up, without a reload', async () => {
    const port = await unusedPort();
    const served = await startDocsServer({
      sandboxUrl: `http://127.0.0.1:${port}`,
      publicApiKey: 'pk_sandbox_demo',
    });
    let late: SandboxProcess | undefined;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      page.setDefaultTimeout(15_000);
      let opened = 0;
      page.on('requestfinished', (request) => {
        if (new URL(request.url()).pathname === '/api/v1/session') opened += 1;
      });
      await page.goto(new URL('/live.html', served.url).href);
      const flow = page.getByTestId('live-root');
      // Tried four times with backoff (about 7 s), then the page says so and offers to try again.
      await flow.getByRole('alert').getByText('The exchange is unavailable.').waitFor({
        timeout: 30_000,
      });
      expect(opened).toBe(4);
      late = await startSandboxProcess(60_000, ['--port', String(port)]);
      await flow.getByRole('button', { name: 'Try again' }).click();
      await flow.getByTestId('session').getByText('SANDBOX session').waitFor();
      expect(opened).toBe(5);
      await shoot(page, 'live-sandbox-late');
    } finally {
      await page.close();
      await served.close();
      await late?.stop();
    }
  });
});
