/**
 * pusher-js's own browser build, unchanged, in Chromium against the sandbox: what a trading
 * page that already speaks to the exchange's websocket does, with nothing of ours in the page.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { channelPayloadSchemas } from '@exchange-kit/contract/events/schemas';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { launchChromium } from '@exchange-kit/test-support/chromium';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { newUser, startTestSandbox } from '../test-support.js';
import { freshProduct, place, storedTrading, type TradingSandbox } from '../testing/trading.js';

const pusherBuild = createRequire(import.meta.url).resolve('pusher-js/dist/web/pusher.min.js');

let sandbox: RunningSandbox;
let browser: Browser;
let trading: TradingSandbox;
let pages: { url: string; server: Server };
const channels = ['executions_cash_btcjpy', 'price_ladders_cash_btcjpy_sell'];

/**
 * The test's own static server on loopback: the page and pusher-js's browser build from
 * node_modules. A real loopback server, not an intercepted request, since Chromium lets only a
 * page served from the local network open a websocket to it.
 */
async function servePages(eventsPort: number) {
  const script = await readFile(pusherBuild);
  const server = createServer((request, response) => {
    if (request.url === '/pusher.min.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    } else {
      response.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(eventsPort, channels));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

beforeAll(async () => {
  [sandbox, browser] = await Promise.all([startTestSandbox(), launchChromium()]);
  trading = storedTrading(sandbox);
  pages = await servePages((sandbox.server.address() as AddressInfo).port);
});
afterAll(async () => {
  pages?.server.close();
  await browser?.close();
  await sandbox?.close();
});

/**
 * A page that loads pusher.min.js with a script tag and records what its channels carry:
 * `follow` subscribes to a channel, `authenticate` sends the auth event existing clients send,
 * with a JWT the page's own server signed for it.
 */
const pageHtml = (port: number, channels: string[]) => `<!doctype html>
<script src="pusher.min.js"></script>
<script>
  window.received = [];
  const pusher = new Pusher('LiquidTapClient', {
    cluster: 'sandbox', wsHost: '127.0.0.1', wsPort: ${port}, forceTLS: false,
    enabledTransports: ['ws'], disableStats: true,
  });
  window.follow = (name) => new Promise((resolve) => {
    const channel = pusher.subscribe(name);
    channel.bind('pusher:subscription_succeeded', resolve);
    channel.bind_global((event, data) => {
      if (!event.startsWith('pusher')) window.received.push({ channel: name, event, data });
    });
  });
  window.authenticate = (jwt) => new Promise((resolve, reject) => {
    pusher.bind('quoine:auth_success', resolve);
    pusher.bind('quoine:auth_failure', (data) => reject(new Error(JSON.stringify(data))));
    pusher.send_event('quoine:auth_request', { path: '/realtime', headers: { 'X-Quoine-Auth': jwt } });
  });
  window.subscribed = Promise.all(${JSON.stringify(channels)}.map(window.follow));
</script>`;

type Received = { channel: string; event: string; data: unknown };
interface PusherPage {
  received: Received[];
  subscribed: Promise<unknown>;
  follow(name: string): Promise<unknown>;
  authenticate(jwt: string): Promise<unknown>;
}

/** A page of the test's server with pusher-js connected and the public channels subscribed. */
async function openPage() {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${pages.url}/`);
  await page.evaluate(() => (window as unknown as PusherPage).subscribed);
  const received = () => page.evaluate(() => (window as unknown as PusherPage).received);
  return { page, errors, received };
}

describe('pusher-js in Chromium', () => {
  it('receives the fills and the book of a public channel as orders are placed over REST', async () => {
    const { page, errors, received } = await openPage();
    const product_id = await freshProduct(trading);
    const seller = await newUser(sandbox);
    const buyer = await newUser(sandbox);
    await place(seller.call, { product_id, side: 'sell', price: '7000000', quantity: '0.003' });
    const bought = await place(buyer.call, { product_id, price: '7000000', quantity: '0.001' });
    expect(bought.status).toBe('filled');

    const fillArrived = async () =>
      (await received()).some((r) => r.channel === channels[0] && r.event === 'created');
    await expect.poll(fillArrived, { timeout: 10_000 }).toBe(true);
    const ladderOf = (all: Received[]) =>
      all
        .filter((r) => r.channel === channels[1])
        .map((r) => channelPayloadSchemas.priceLadders.parse(r.data));
    // The resting sell, then what the buy left of it.
    await expect
      .poll(async () => ladderOf(await received()), { timeout: 10_000 })
      .toEqual([[['7000000', '0.003']], [['7000000', '0.002']]]);
    const [fill] = (await received()).filter((r) => r.channel === channels[0]);
    expect(channelPayloadSchemas.executionsCash.parse(fill?.data)).toMatchObject({
      price: '7000000',
      quantity: '0.001',
      taker_side: 'buy',
    });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("receives its user's orders on a private channel once the auth event is answered", async () => {
    const { page, errors, received } = await openPage();
    const user = await newUser(sandbox);
    const jwt = await signServiceAuth(user, { path: '/realtime' });
    await page.evaluate((token) => (window as unknown as PusherPage).authenticate(token), jwt);
    const channel = 'user_account_jpy_orders';
    await page.evaluate((name) => (window as unknown as PusherPage).follow(name), channel);

    const product_id = await freshProduct(trading);
    const placed = await place(user.call, { product_id, price: '4000000', quantity: '0.001' });
    const orderIds = async () =>
      (await received())
        .filter((r) => r.channel === channel)
        .map((r) => channelPayloadSchemas.userOrders.parse(r.data).id);
    await expect.poll(orderIds, { timeout: 10_000 }).toEqual([placed.id]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
