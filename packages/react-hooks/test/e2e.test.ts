// @vitest-environment node
/**
 * The example's whole buy flow in headless Chromium against the sandbox, with a screenshot of
 * each step under test-output/e2e/.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import {
  advanceSandboxClock,
  type SandboxProcess,
  startSandboxProcess,
  unusedPort,
} from '@exchange-kit/sandbox/testing';
import { launchChromium } from '@exchange-kit/test-support/chromium';
import type { Browser, Page } from 'playwright-core';
import { createLogger } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type ExampleServer, startExampleServer } from '../example/server.js';

const screenshots = fileURLToPath(new URL('../test-output/e2e/', import.meta.url));
const wallet = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
let example: ExampleServer;
/** The example against a sandbox of this file's own, whose clock it moves. */
let lateExample: ExampleServer;
let clockSandbox: SandboxProcess;
let browser: Browser;

beforeAll(async () => {
  await mkdir(screenshots, { recursive: true });
  clockSandbox = await startSandboxProcess(60_000, [
    '--settle-after',
    'never',
    '--require-session-auth',
  ]);
  [example, lateExample, browser] = await Promise.all([
    startExampleServer({
      partnersUrl: inject('partnersUrl'),
      publicApiKey: inject('publicApiKey'),
      ...inject('backendCredentials'),
    }),
    startExampleServer({
      partnersUrl: clockSandbox.partnerUrl,
      publicApiKey: clockSandbox.publicApiKey,
      tokenId: clockSandbox.tokenId,
      tokenSecret: clockSandbox.tokenSecret,
    }),
    launchChromium(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await example?.close();
  await lateExample?.close();
  await clockSandbox?.stop();
});

const shoot = (page: Page, step: string) =>
  page.screenshot({ path: `${screenshots}${step}.png`, fullPage: true });

describe('example buy flow', () => {
  it('opens a session, takes an intent, pays and reaches PENDING with a live countdown', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const partnerCalls: string[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/api/') || pathname.startsWith('/backend/')) {
        partnerCalls.push(`${request.method()} ${pathname}`);
      }
    });

    await page.goto(example.url);
    await page.getByTestId('session').getByText('SANDBOX session for').waitFor();
    await shoot(page, '1-session');

    await page.getByRole('button', { name: 'Buy 0.01 BTC' }).click();
    await page.getByTestId('intent').getByText('0.01 BTC, paid for in USDC').waitFor();
    await shoot(page, '2-intent');

    await page.getByLabel('I accept the terms of service').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('.status', { hasText: 'SETTLEMENT_METHOD_REQUIRED' }).waitFor();
    await shoot(page, '3-transaction');

    await page.getByRole('button', { name: 'Pay by USDC transfer' }).click();
    await page.locator('.status', { hasText: 'SETTLEMENT_PARAMETERS_REQUIRED' }).waitFor();
    await page.getByLabel('Your BTC wallet address').fill(wallet);
    await shoot(page, '4-requirements');

    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('.status', { hasText: 'PENDING' }).waitFor();
    const countdown = page.getByTestId('countdown');
    const first = Number.parseInt((await countdown.textContent()) ?? '', 10);
    expect(first).toBeGreaterThan(10);
    expect(first).toBeLessThanOrEqual(20);
    await expect
      .poll(async () => Number.parseInt((await countdown.textContent()) ?? '', 10), {
        timeout: 3_000,
      })
      .toBeLessThan(first);
    await expect(page.getByTestId('funding').textContent()).resolves.toMatch(
      /^Send 675 USDC to 0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c within \d+ s\.$/,
    );
    await expect(page.getByTestId('payout').textContent()).resolves.toBe(
      `Then 0.01 BTC go to ${wallet}.`,
    );
    await shoot(page, '5-pending');

    expect(pageErrors).toEqual([]);
    // StrictMode doubles the effects; the page still opens one session and one transaction.
    expect(partnerCalls.filter((call) => call === 'POST /api/v1/session')).toHaveLength(1);
    expect(
      partnerCalls.filter((call) => call === 'POST /api/v1/transaction/intent_to_trade'),
    ).toHaveLength(1);
    expect(partnerCalls.some((call) => call.includes('/partner/'))).toBe(false);
  }, 60_000);

  it('shows an expired price, gets a new one, and reaches PENDING on it', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.clock.install();
    await page.goto(lateExample.url);

    await page.getByRole('button', { name: 'Buy 0.01 BTC' }).click();
    await page.getByLabel('I accept the terms of service').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Pay by USDC transfer' }).click();
    await page.getByLabel('Your BTC wallet address').fill(wallet);

    // The user is slow: 25 s pass on the sandbox's clock and on the page's.
    await advanceSandboxClock(clockSandbox, 25);
    await page.clock.fastForward('00:25');
    await page.getByTestId('expired').getByText('The price expired.').waitFor();
    await expect(page.getByLabel('Your BTC wallet address').count()).resolves.toBe(0);
    await shoot(page, '6-expired');

    await page.getByRole('button', { name: 'Get a new price' }).click();
    await page.getByLabel('Your BTC wallet address').fill(wallet);
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('.status', { hasText: 'PENDING' }).waitFor();
    await shoot(page, '7-requoted');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});

describe('a page loaded while the exchange is down', () => {
  it('tries the session again by itself, then opens it once the exchange is up, without a reload', async () => {
    const port = await unusedPort();
    const credentials = { tokenId: '3141592', tokenSecret: 'unused: no intent is created here' };
    // The proxy reports each session call it cannot pass on: asserted below, not printed.
    const logger = { ...createLogger('warn'), error: vi.fn() };
    const downExample = await startExampleServer({
      partnersUrl: `http://127.0.0.1:${port}`,
      publicApiKey: 'pk_sandbox_demo',
      ...credentials,
      logger,
    });
    let sandbox: SandboxProcess | undefined;
    const page = await browser.newPage();
    try {
      page.setDefaultTimeout(15_000);
      const sessionCalls: number[] = [];
      page.on('requestfinished', (request) => {
        if (request.method() === 'POST' && request.url().endsWith('/api/v1/session')) {
          sessionCalls.push(Date.now());
        }
      });
      await page.goto(downExample.url);
      await page.getByRole('status').getByText('Opening a session…').waitFor();
      // One request and three more with TanStack's backoff (1, 2 and 4 s), then the page says so.
      await page
        .getByRole('alert')
        .getByText('The exchange is unavailable. Please try again later.')
        .waitFor({ timeout: 30_000 });
      expect(sessionCalls).toHaveLength(4);
      const logged = logger.error.mock.calls.map(([message]) =>
        stripVTControlCharacters(String(message)),
      );
      expect(logged).toHaveLength(4);
      for (const message of logged) {
        expect(message).toMatch(/http proxy error: \/api\/v1\/session\n.*ECONNREFUSED/);
      }
      await shoot(page, '8-exchange-down');

      sandbox = await startSandboxProcess(60_000, ['--port', String(port)]);
      await page.getByRole('button', { name: 'Try again' }).click();
      await page.getByTestId('session').getByText('SANDBOX session for').waitFor();
      expect(sessionCalls).toHaveLength(5);
      // Coming back to the tab asks for nothing more: the session is open.
      await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
      await page.getByRole('button', { name: 'Buy 0.01 BTC' }).waitFor();
      expect(sessionCalls).toHaveLength(5);
      await shoot(page, '9-exchange-up');
    } finally {
      await page.close();
      await downExample.close();
      await sandbox?.stop();
    }
  }, 90_000);
});
