/**
 * The console in Chromium: a person watches a product's book and fills, and a demo user's
 * views, while calls over the interfaces change them, the page following the channels; and
 * presses the test-control buttons. With UPDATE_SCREENSHOTS=1 it also takes the docs' pictures.
 */
import { launchChromium } from '@exchange-kit/test-support/chromium';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { clientFor, newUser, startTestSandbox } from '../test-support.js';
import { pendingTransaction } from '../testing/pending-transaction.js';
import { freshProduct, place, storedTrading, type TradingSandbox } from '../testing/trading.js';

let sandbox: RunningSandbox;
let browser: Browser;
let trading: TradingSandbox;

beforeAll(async () => {
  [sandbox, browser] = await Promise.all([
    startTestSandbox({ testControl: true }),
    launchChromium(),
  ]);
  trading = storedTrading(sandbox);
});
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

/** A page that fails the test on any script error it logs. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, errors };
}

/** Everything the page and the sandbox said to each other: URLs, headers, bodies, frames. */
function recordTraffic(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    seen.push(request.url(), JSON.stringify(request.headers()), request.postData() ?? '');
  });
  page.on('response', (response) => {
    seen.push(JSON.stringify(response.headers()));
    response.text().then(
      (text) => seen.push(text),
      () => {},
    );
  });
  page.on('websocket', (socket) => {
    socket.on('framesent', (frame) => seen.push(String(frame.payload)));
    socket.on('framereceived', (frame) => seen.push(String(frame.payload)));
  });
  return seen;
}

const screenshots = process.env.UPDATE_SCREENSHOTS === '1';
const docsPicture = (name: string) =>
  new URL(`../../../docs/site/public/console/${name}`, import.meta.url).pathname;

describe('the sandbox console', () => {
  it('shows a product book and fills, and follows them live', async () => {
    const product_id = await freshProduct(trading);
    const { page, errors } = await openPage();
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

  it("shows a demo user's views from the private channels, and the test-control buttons act", async () => {
    const { credentials } = sandbox;
    const second = clientFor(sandbox, {
      tokenId: credentials.secondTokenId,
      tokenSecret: credentials.secondTokenSecret,
    });
    const product_id = await freshProduct(trading, { margin: true });
    const { page, errors } = await openPage();
    const traffic = recordTraffic(page);

    await page.goto(`${sandbox.exchangeUrl}/`);
    await page.getByRole('link', { name: 'Console' }).click();
    await page.locator('body[data-ready="true"][data-user-ready="true"]').waitFor();
    await page.selectOption('#product', String(product_id));
    await page.selectOption('#user', '1002');
    await page.locator('#user-connection', { hasText: 'following user 1002' }).waitFor();

    // An order placed over REST, signed here: in the user's orders, the book and the reserve.
    const order = await place(second, { product_id, price: '6000000', quantity: '0.01' });
    await page.locator(`#orders tr[data-id="${order.id}"]`, { hasText: 'live' }).waitFor();
    await page.locator('#buy-levels tr', { hasText: '6000000' }).waitFor();
    const jpy = page.locator('#balances tr', { hasText: 'JPY' }).locator('td');
    const accounts = async () =>
      (await second('GET', '/accounts')).body as {
        fiat_accounts: { currency: string; balance: string; reserved_balance: string }[];
        crypto_accounts: { currency: string; balance: string; reserved_balance: string }[];
      };
    const reserved = (await accounts()).fiat_accounts.find((row) => row.currency === 'JPY');
    expect(reserved?.reserved_balance).not.toBe('0');
    await expect
      .poll(async () => (await jpy.allTextContents())[2])
      .toBe(reserved?.reserved_balance);

    // Filled as a margin order by a counterpart: an open position, marked by the button.
    expect((await second('PUT', `/orders/${order.id}/cancel`)).status).toBe(200);
    await page.locator(`#orders tr[data-id="${order.id}"]`, { hasText: 'cancelled' }).waitFor();
    await place(second, {
      product_id,
      price: '6000000',
      quantity: '0.01',
      trading_type: 'margin',
      leverage_level: 2,
    });
    const counterpart = await newUser(sandbox);
    await place(counterpart.call, { product_id, side: 'sell', price: '6000000', quantity: '0.01' });
    const position = page.locator('#positions tr', { hasText: '0.01' });
    await position.waitFor();
    await page.selectOption('#mark-product', String(product_id));
    await page.fill('#mark-price', '6100000');
    await page.click('#move-mark');
    const trades = (await second('GET', '/trades?status=open')).body as {
      models: { product_id: number; open_pnl: string }[];
    };
    const marked = trades.models.find((trade) => trade.product_id === product_id)?.open_pnl;
    expect(marked).toBe('1000');
    await expect.poll(async () => (await position.locator('td').allTextContents())[5]).toBe(marked);

    // A deposit credited by its button: the balance from the account channel, the ledger read again.
    const btcBefore = (await accounts()).crypto_accounts.find((row) => row.currency === 'BTC');
    await page.fill('#deposit-amount', '2.5');
    const btc = page.locator('#balances tr', { hasText: 'BTC' });
    await btc.getByRole('button', { name: 'credit deposit' }).click();
    await page.locator('#ledger tr', { hasText: 'funding' }).filter({ hasText: '2.5' }).waitFor();
    const btcAfter = (await accounts()).crypto_accounts.find((row) => row.currency === 'BTC');
    expect(Number(btcAfter?.balance)).toBe(Number(btcBefore?.balance) + 2.5);
    await expect
      .poll(async () => (await btc.locator('td').allTextContents())[1])
      .toBe(btcAfter?.balance);

    // A withdrawal, moved on by its button.
    const withdrawal = (
      await second('POST', '/crypto_withdrawals', {
        body: {
          crypto_withdrawal: {
            currency: 'ETH',
            address: '0x52908400098527886E0F7030069857D2E4169EE7',
            amount: '1',
          },
        },
      })
    ).body as { id: number };
    const held = page.locator(`#withdrawals tr[data-id="${withdrawal.id}"]`);
    await held.filter({ hasText: 'pending' }).waitFor();
    await held.getByRole('button', { name: 'processing' }).click();
    await expect
      .poll(async () => (await held.locator('td').allTextContents())[3])
      .toBe('processing');
    const states = (await second('GET', '/crypto_withdrawals')).body as {
      models: { id: number; state: string }[];
    };
    expect(states.models.find((row) => row.id === withdrawal.id)?.state).toBe('processing');

    // A partner transaction, settled by its button.
    const transaction = await pendingTransaction(sandbox.partnerUrl, credentials.publicApiKey);
    const listed = page.locator(`#transactions tr[data-id="${transaction}"]`);
    await listed.filter({ hasText: 'PENDING' }).waitFor();
    await listed.getByRole('button', { name: 'FILLED' }).click();
    await listed.locator('td', { hasText: /^FILLED$/ }).waitFor();
    const status = await fetch(`${sandbox.partnerUrl}/api/v1/transaction/status/${transaction}`);
    expect(((await status.json()) as { payload: { status: string } }).payload.status).toBe(
      'FILLED',
    );

    if (screenshots) {
      // The demo market's first product, whose book the market maker keeps.
      await page.selectOption('#product', { index: 0 });
      await page.locator('#sell-levels tr').first().waitFor();
      await page.locator('#market').screenshot({ path: docsPicture('market.png') });
      await page.locator('#user-views').screenshot({ path: docsPicture('user.png') });
      await page.locator('#partner').screenshot({ path: docsPicture('partner.png') });
    }

    // Neither demo secret anywhere the page went: its HTML, its scripts, its calls, its frames.
    traffic.push(await page.content());
    for (const secret of [credentials.tokenSecret, credentials.secondTokenSecret]) {
      expect(traffic.filter((text) => text.includes(secret))).toEqual([]);
    }
    expect(traffic.some((text) => text.includes('quoine:auth_success'))).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
