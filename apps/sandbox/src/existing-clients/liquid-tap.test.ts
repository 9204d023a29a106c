/**
 * liquid-tap 0.3.6, the exchange's own websocket client as published, unchanged, against the
 * sandbox's events on loopback: it connects at the Pusher path, subscribes to a public channel,
 * authenticates with `quoine:auth_request` (a JWT for /realtime under X-Quoine-Auth, which it
 * signs with crypto-js) and then hears a private channel of the user.
 *
 * liquid-tap's own bug, worked around here: its constructor merges the options given into its
 * module-wide defaults (`Object.assign(defaultOptions, options)`), so a client inherits what an
 * earlier one was given. Each client here is given every option it depends on.
 */
import type { AddressInfo } from 'node:net';
import { CLIENT_EVENTS, TapClient } from 'liquid-tap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { demoClient, newUser, startTestSandbox } from '../test-support.js';

let sandbox: RunningSandbox;
let port: number;
const clients: TapClient[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({
    eventTimes: { activityTimeoutSeconds: 60, pongTimeoutMs: 300 },
  });
  port = (sandbox.server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await sandbox?.close();
});

/** A client of the sandbox on loopback, signing as `auth` when given. */
function tapClient(auth: { tokenId: string; tokenSecret: string } | null = null): TapClient {
  const client = new TapClient({
    wsHost: '127.0.0.1',
    wsPort: port,
    useTls: false,
    appId: 'LiquidTapClient',
    query: { protocol: 7 },
    auth,
    authenticationTimeout: 5000,
  });
  clients.push(client);
  return client;
}

/** The next `event` a channel of `client` hears, parsed as the client hands it on. */
function next(client: TapClient, channelName: string, event: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} on ${channelName}`)), 10_000);
    client.subscribe(channelName).bind(event, (data: unknown) => {
      clearTimeout(timer);
      resolve(typeof data === 'string' ? JSON.parse(data) : data);
    });
  });
}

const restingBuy = (price: string) => ({
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: '0.01',
  price,
});

describe('liquid-tap, the exchange’s websocket client', () => {
  it("hears a public channel: the book's buy side, as an order rests in it", async () => {
    const client = tapClient();
    const heard = next(client, 'price_ladders_cash_btcjpy_buy', 'updated');
    await new Promise<void>((resolve) => client.bind(CLIENT_EVENTS.CONNECTED, () => resolve()));
    // Subscribed once connected: an order placed now changes the book it listens to.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const placed = await demoClient(sandbox)('POST', '/orders', { body: restingBuy('9100000') });
    expect(placed.status).toBe(200);
    const levels = (await heard) as [string, string][];
    expect(levels).toContainEqual(['9100000', expect.any(String)]);
  });

  it("authenticates, then hears its user's orders and no one else's", async () => {
    const user = await newUser(sandbox);
    const other = await newUser(sandbox);
    const client = tapClient({ tokenId: user.tokenId, tokenSecret: user.tokenSecret });
    const authenticated = new Promise<void>((resolve, reject) => {
      client.bind(CLIENT_EVENTS.AUTHENTICATED, () => resolve());
      client.bind(CLIENT_EVENTS.AUTHENTICATION_FAILED, (failure: unknown) =>
        reject(new Error(`authentication failed: ${JSON.stringify(failure)}`)),
      );
    });
    const heard: unknown[] = [];
    client.subscribe('user_account_jpy_orders').bind('updated', (data: unknown) => {
      heard.push(typeof data === 'string' ? JSON.parse(data) : data);
    });
    await authenticated;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const others = await other.call('POST', '/orders', { body: restingBuy('9100001') });
    const mine = await user.call('POST', '/orders', { body: restingBuy('9100002') });
    expect([others.status, mine.status]).toEqual([200, 200]);
    const id = (mine.body as { id: number }).id;
    const deadline = Date.now() + 10_000;
    while (!heard.some((order) => (order as { id: number }).id === id) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(heard).toContainEqual(expect.objectContaining({ id, status: 'live' }));
    const otherId = (others.body as { id: number }).id;
    expect(heard.map((order) => (order as { id: number }).id)).not.toContain(otherId);
  });
});
