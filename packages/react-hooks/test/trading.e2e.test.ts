// @vitest-environment node
/**
 * The trading hooks in headless Chromium against the sandbox: a page shows a product's book and
 * fills, follows orders placed over REST (signed here, on the test's side, never in the page),
 * and after its websocket is cut and comes back, reports the gap and shows the book read again.
 */
import { fileURLToPath } from 'node:url';
import { createExchangeClient } from '@exchange-kit/exchange-client';
import { launchChromium } from '@exchange-kit/test-support/chromium';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type MarketProxy, startMarketProxy } from './market-proxy.js';

let browser: Browser;
let proxy: MarketProxy;
const trader = () =>
  createExchangeClient({ baseUrl: inject('exchangeUrl'), ...inject('backendCredentials') });

/** The page's script, bundled as a browser bundler would, with React and the hooks. */
async function pageScript() {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./trading-page.tsx', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['@exchange-kit/source', 'browser'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles.map((file) => file.text).join('\n');
}

beforeAll(async () => {
  const script = await pageScript();
  // The page and the exchange on one loopback origin, as a site that serves both would.
  [proxy, browser] = await Promise.all([
    startMarketProxy(inject('exchangeUrl'), {
      // Served for real, not intercepted: Chromium lets only a page from the local network
      // open a websocket to it.
      '/trading': {
        type: 'text/html',
        body: '<!doctype html><div id="root"></div><script type="module" src="/trading.js"></script>',
      },
      '/trading.js': { type: 'text/javascript', body: script },
    }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await proxy?.close();
});

describe('a trading page', () => {
  it('shows the book and fills, follows new orders, and repairs itself after a gap', async () => {
    const [btcjpy] = (await trader().products.list()).filter(
      (product) => product.currency_pair_code === 'BTCJPY',
    );
    const productId = String(btcjpy?.id);
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${proxy.url}/trading?product=${productId}&pair=BTCJPY`);
    await page.locator('#status', { hasText: 'live' }).waitFor();

    const resting = await trader().orders.create({
      order_type: 'limit',
      side: 'buy',
      product_id: productId,
      price: '1023',
      quantity: '0.0023',
    });
    await page.locator('#buy tr', { hasText: '1023' }).waitFor();
    expect(
      await page.locator('#buy tr', { hasText: '1023' }).locator('td').allTextContents(),
    ).toEqual(['1023', '0.0023']);
    await trader().orders.create({
      order_type: 'market',
      side: 'buy',
      product_id: productId,
      quantity: '0.0013',
    });
    const [newest] = (await trader().executions.list({ product_id: productId })).models;
    await page.locator(`#fills tr[data-id="${newest?.id}"]`).waitFor();
    expect(await page.locator('#fills tr').first().getAttribute('data-id')).toBe(
      String(newest?.id),
    );

    // The connection is lost; an order placed meanwhile reaches the page by the repair alone.
    proxy.down();
    const missed = await trader().orders.create({
      order_type: 'limit',
      side: 'buy',
      product_id: productId,
      price: '1029',
      quantity: '0.0029',
    });
    proxy.up();
    await page.locator('#status', { hasText: 'repaired after a gap' }).waitFor();
    await page.locator('#buy tr', { hasText: '1029' }).waitFor();
    expect(errors).toEqual([]);
    for (const order of [resting, missed]) await trader().orders.cancel({ id: order.id });
    await page.close();
  });
});
