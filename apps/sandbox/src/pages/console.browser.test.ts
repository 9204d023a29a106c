/**
 * The console in Chromium: a person watches a product's book and fills while calls over the
 * exchange interface change them, the page following the public channels.
 */
import { launchChromium } from '@exchange-kit/test-support/chromium';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { newUser, startTestSandbox } from '../test-support.js';
import { freshProduct, place, storedTrading, type TradingSandbox } from '../testing/trading.js';

let sandbox: RunningSandbox;
let browser: Browser;
let trading: TradingSandbox;

beforeAll(async () => {
  [sandbox, browser] = await Promise.all([startTestSandbox(), launchChromium()]);
  trading = storedTrading(sandbox);
});
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

describe('the sandbox console', () => {
  it('shows a product book and fills, and follows them live', async () => {
    const product_id = await freshProduct(trading);
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    expect((await page.goto(`${sandbox.exchangeUrl}/console`))?.status()).toBe(200);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.selectOption('#product', String(product_id));
    await page.locator('#connection', { hasText: 'live' }).waitFor();
    // Empty book, no fills: the new product's own.
    await expect.poll(() => page.locator('#fills tr').count()).toBe(0);

    const buyer = await newUser(sandbox);
    const seller = await newUser(sandbox);
    await place(buyer.call, { product_id, price: '6000000', quantity: '0.002' });
    await page.locator('#buy-levels tr', { hasText: '6000000' }).waitFor();
    await place(seller.call, { product_id, side: 'sell', price: '6000000', quantity: '0.0005' });
    const fill = page.locator('#fills tr').first();
    await fill.filter({ hasText: '0.0005' }).waitFor();
    expect((await fill.locator('td').allTextContents()).slice(1, 4)).toEqual([
      'sell',
      '6000000',
      '0.0005',
    ]);
    await page.locator('#buy-levels tr', { hasText: '0.0015' }).waitFor();
    await page.screenshot({ path: new URL('../../.tmp/console.png', import.meta.url).pathname });
    expect(errors).toEqual([]);
    await page.close();
  });
});
