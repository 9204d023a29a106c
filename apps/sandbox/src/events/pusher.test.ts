/**
 * The websocket endpoint as clients meet it: pusher-js (a client no one here wrote) for the
 * public channels, and a bare `ws` client for the protocol's edges, against a sandbox on
 * loopback.
 */
import type { AddressInfo } from 'node:net';
import { channelPayloadSchemas } from '@exchange-kit/contract/events/schemas';
import {
  zGetAccountsResponse,
  zListExecutionsResponse,
  zOrder,
} from '@exchange-kit/contract/exchange/schemas';
import { signServiceAuth } from '@exchange-kit/core/auth';
import PusherModule from 'pusher-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { RunningSandbox } from '../server.js';
import { type Client, demoClient, newUser, startTestSandbox, valid } from '../test-support.js';
import { freshProduct, place, storedTrading, type TradingSandbox } from '../testing/trading.js';
import { eventsPath } from './events-server.js';

// pusher-js's types declare an ES module's default export, while its Node build is CommonJS
// whose module.exports is the class itself: that is what a default import gets at run time.
const Pusher = PusherModule as unknown as typeof PusherModule.default;

let sandbox: RunningSandbox;
let trading: TradingSandbox;
let url: string;

/**
 * Read by the sandbox at each connection: silence long enough that no test but the ping test
 * is pinged, however slowly a loaded machine runs it.
 */
const eventTimes = { activityTimeoutSeconds: 60, pongTimeoutMs: 300 };

beforeAll(async () => {
  sandbox = await startTestSandbox({ eventTimes });
  trading = storedTrading(sandbox);
  const { port } = sandbox.server.address() as AddressInfo;
  url = `ws://127.0.0.1:${port}${eventsPath}?protocol=7`;
});

afterAll(async () => {
  await sandbox?.close();
});

/** A bare client: every frame it receives, parsed, and a way to wait for one. */
async function rawClient() {
  const socket = new WebSocket(url);
  const frames: { event: string; channel?: string; data: unknown }[] = [];
  const waiting: (() => void)[] = [];
  socket.on('message', (raw) => {
    frames.push(JSON.parse(String(raw)));
    for (const wake of waiting.splice(0)) wake();
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const next = async (event: string, timeoutMs = 5000, channel?: string) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = frames.findIndex(
        (frame) => frame.event === event && (channel === undefined || frame.channel === channel),
      );
      if (at >= 0) return frames.splice(at, 1)[0] as (typeof frames)[number];
      if (Date.now() > deadline) throw new Error(`no ${event} within ${timeoutMs} ms`);
      await new Promise<void>((wake) => {
        waiting.push(wake);
        setTimeout(wake, 50);
      });
    }
  };
  const send = (event: string, data: unknown) => socket.send(JSON.stringify({ event, data }));
  return { socket, frames, next, send, closed };
}

describe('the Pusher protocol', () => {
  it('greets a connection with its socket id and activity timeout', async () => {
    const client = await rawClient();
    const greeting = await client.next('pusher:connection_established');
    expect(JSON.parse(greeting.data as string)).toEqual({
      socket_id: expect.stringMatching(/^[0-9]+\.[0-9]+$/),
      activity_timeout: eventTimes.activityTimeoutSeconds,
    });
    client.socket.close();
  });

  it('answers a ping with a pong, and closes a connection that answers no ping (4201)', async () => {
    eventTimes.activityTimeoutSeconds = 1;
    const client = await rawClient().finally(() => {
      eventTimes.activityTimeoutSeconds = 60;
    });
    client.send('pusher:ping', {});
    await client.next('pusher:pong');
    // Silent past the activity timeout, it is pinged, and closed once the pong is overdue.
    await client.next('pusher:ping', 3000);
    expect(await client.closed).toBe(4201);
  });

  it('refuses, and keeps the connection for, a channel that does not exist or is private', async () => {
    const client = await rawClient();
    client.send('pusher:subscribe', { channel: 'executions_cash_btc_jpy' });
    expect((await client.next('pusher:error')).data).toEqual({
      code: null,
      message: expect.stringMatching(/^channel: no channel is named "executions_cash_btc_jpy"/),
    });
    for (const channel of ['user_account_jpy_orders', 'user']) {
      client.send('pusher:subscribe', { channel });
      expect((await client.next('pusher:error')).data).toMatchObject({
        message: expect.stringMatching(/^channel: .*private/),
      });
    }
    client.send('pusher:subscribe', { channel: 'executions_cash_btcjpy' });
    const succeeded = await client.next('pusher_internal:subscription_succeeded');
    expect(succeeded.channel).toBe('executions_cash_btcjpy');
    client.socket.close();
  });

  it('names what is wrong with a frame it cannot read, and stays open', async () => {
    const client = await rawClient();
    client.socket.send('not json');
    expect((await client.next('pusher:error')).data).toMatchObject({
      message: 'a frame must be a JSON object',
    });
    client.send('pusher:subscribe', { channel: 'executions_cash_btcjpy', extra: 1 });
    expect((await client.next('pusher:error')).data).toMatchObject({ code: null });
    client.send('client-chat', {});
    expect((await client.next('pusher:error')).data).toMatchObject({
      message: 'event: "client-chat" is not one a client sends',
    });
    client.send('pusher:ping', {});
    await client.next('pusher:pong');
    client.socket.close();
  });

  it('drops a subscriber that stops reading, and keeps serving the others', async () => {
    const channel = 'executions_cash_ethjpy';
    const slow = await rawClient();
    const steady = await rawClient();
    for (const client of [slow, steady]) {
      client.send('pusher:subscribe', { channel });
      await client.next('pusher_internal:subscription_succeeded');
    }
    // The slow client's socket stops reading: what the sandbox sends it piles up.
    (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const data = JSON.stringify({ filler: 'x'.repeat(256 * 1024) });
    let sent = 0;
    while (sandbox.events.subscribers(channel) === 2 && sent < 200) {
      sandbox.events.publish([{ key: channel, channel, event: 'created', data }]);
      sent++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(sandbox.events.subscribers(channel)).toBe(1);
    (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await slow.closed).toBe(4100);
    // The steady subscriber received every event, the ones after the drop too.
    sandbox.events.publish([{ key: channel, channel, event: 'created', data: '{"last":true}' }]);
    for (let at = 0; at < sent; at++) await steady.next('created');
    expect((await steady.next('created')).data).toBe('{"last":true}');
    steady.socket.close();
  }, 30_000);
});

/** The accounts of the caller as `GET /accounts` lists them. */
async function balancesOf(call: Client) {
  const accounts = valid(zGetAccountsResponse, await call('GET', '/accounts'));
  return [...accounts.crypto_accounts, ...accounts.fiat_accounts];
}

describe('private channels', () => {
  /** A bare client authenticated as the user of `token`, with what the server answered. */
  async function signedIn(token: { tokenId: string; tokenSecret: string }) {
    const client = await rawClient();
    await client.next('pusher:connection_established');
    const jwt = await signServiceAuth(token, { path: '/realtime' });
    client.send('quoine:auth_request', { path: '/realtime', headers: { 'X-Quoine-Auth': jwt } });
    await client.next('quoine:auth_success');
    return { ...client, jwt };
  }

  it("carry a user its own orders and fills, and no one else's", async () => {
    const product_id = await freshProduct(trading);
    const buyer = await newUser(sandbox);
    const seller = await newUser(sandbox);
    const other = await newUser(sandbox);
    const clients = await Promise.all([buyer, seller, other].map((user) => signedIn(user)));
    for (const [at, client] of clients.entries()) {
      const own = `user_${[buyer, seller, other][at]?.userId}_account_jpy`;
      for (const channel of ['user_account_jpy_orders', 'user_executions_cash_btcjpy', own]) {
        client.send('pusher:subscribe', { channel });
        expect((await client.next('pusher_internal:subscription_succeeded')).channel).toBe(channel);
      }
    }
    const [buyerEvents, sellerEvents, otherEvents] = clients;
    const bought = await place(buyer.call, { product_id, price: '5000000', quantity: '0.001' });
    const placed = await buyerEvents?.next('updated', 5000, 'user_account_jpy_orders');
    expect(placed?.channel).toBe('user_account_jpy_orders');
    const order = zOrder.parse(JSON.parse(placed?.data as string));
    expect({ id: order.id, status: order.status }).toEqual({ id: bought.id, status: 'live' });

    await place(seller.call, { product_id, side: 'sell', price: '5000000', quantity: '0.001' });
    const filled = zOrder.parse(
      JSON.parse(
        (await buyerEvents?.next('updated', 5000, 'user_account_jpy_orders'))?.data as string,
      ),
    );
    expect(filled.status).toBe('filled');
    const own = JSON.parse((await buyerEvents?.next('created'))?.data as string);
    expect(own).toMatchObject({ my_side: 'buy', order_id: bought.id, price: '5000000' });
    expect(JSON.parse((await sellerEvents?.next('created'))?.data as string)).toMatchObject({
      my_side: 'sell',
    });
    // The buyer's JPY account: reserved when the buy rested, paid when it filled.
    const account = `user_${buyer.userId}_account_jpy`;
    const accountEvents = buyerEvents?.frames.filter((frame) => frame.channel === account) ?? [];
    expect(accountEvents.length).toBeGreaterThan(0);
    const last = JSON.parse(accountEvents.at(-1)?.data as string);
    expect(last).toEqual((await balancesOf(buyer.call)).find((shown) => shown.id === last.id));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(otherEvents?.frames).toEqual([]);
    for (const client of clients) client.socket.close();
  });

  it('are refused without authentication, for another user, and with a spent or forged JWT', async () => {
    const user = await newUser(sandbox);
    const client = await signedIn(user);
    client.send('pusher:subscribe', { channel: `user_${user.userId + 1}_account_jpy` });
    expect((await client.next('pusher:error')).data).toMatchObject({
      message: expect.stringMatching(/another user's/),
    });
    client.send('pusher:subscribe', { channel: `user_${user.userId}_account_jpy` });
    await client.next('pusher_internal:subscription_succeeded');
    // Every user subscribes to their own record by the one name.
    client.send('pusher:subscribe', { channel: 'user' });
    expect((await client.next('pusher_internal:subscription_succeeded')).channel).toBe('user');
    // The JWT's nonce is spent: sent again, it lets nothing in.
    client.send('quoine:auth_request', {
      path: '/realtime',
      headers: { 'X-Service-Auth': client.jwt },
    });
    expect((await client.next('quoine:auth_failure')).data).toEqual({
      message: 'Nonce is too small',
    });
    const forged = await signServiceAuth(
      { tokenId: user.tokenId, tokenSecret: 'not-the-secret' },
      { path: '/realtime' },
    );
    client.send('quoine:auth_request', {
      path: '/realtime',
      headers: { 'X-Service-Auth': forged },
    });
    expect((await client.next('quoine:auth_failure')).data).toEqual({
      message: 'API Authentication failed',
    });
    const elsewhere = await signServiceAuth(user, { path: '/orders' });
    client.send('quoine:auth_request', {
      path: '/realtime',
      headers: { 'X-Service-Auth': elsewhere },
    });
    expect((await client.next('quoine:auth_failure')).data).toEqual({
      message: 'Path does not match',
    });
    client.socket.close();
  });
});

/** pusher-js as an existing client configures it for the sandbox: its host, port and app key. */
function pusherClient() {
  const { port } = sandbox.server.address() as AddressInfo;
  return new Pusher('LiquidTapClient', {
    cluster: 'sandbox',
    wsHost: '127.0.0.1',
    wsPort: port,
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
  });
}

describe('public channels through pusher-js', () => {
  it('deliver each fill, the book side it changed and the product, once each, after the REST answer', async () => {
    const pusher = pusherClient();
    try {
      const product_id = await freshProduct(trading);
      const received: { channel: string; event: string; data: unknown }[] = [];
      const subscribed = ['executions_cash_btcjpy', 'price_ladders_cash_btcjpy_buy'].map(
        (name) =>
          new Promise<void>((resolve) => {
            const channel = pusher.subscribe(name);
            channel.bind('pusher:subscription_succeeded', () => resolve());
            channel.bind_global((event: string, data: unknown) => {
              if (!event.startsWith('pusher')) received.push({ channel: name, event, data });
            });
          }),
      );
      await Promise.all(subscribed);

      const call = demoClient(sandbox);
      await place(call, { product_id, price: '5000000', quantity: '0.002' });
      const sellAnswer = await place(call, {
        product_id,
        side: 'sell',
        price: '5000000',
        quantity: '0.002',
      });
      expect(sellAnswer.status).toBe('filled');

      const deadline = Date.now() + 5000;
      while (received.filter((r) => r.event === 'created').length < 1 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      const executions = received.filter((r) => r.channel === 'executions_cash_btcjpy');
      expect(executions).toHaveLength(1);
      const execution = channelPayloadSchemas.executionsCash.parse(executions[0]?.data);
      const listed = valid(
        zListExecutionsResponse,
        await call('GET', `/executions?product_id=${product_id}`, { anonymous: true }),
      );
      expect('models' in listed && listed.models[0]).toEqual(execution);

      // The buy side: the resting buy, then its fill emptied it.
      const ladders = received.filter((r) => r.channel === 'price_ladders_cash_btcjpy_buy');
      expect(ladders.map((r) => channelPayloadSchemas.priceLadders.parse(r.data))).toEqual([
        [['5000000', '0.002']],
        [],
      ]);
    } finally {
      pusher.disconnect();
    }
  });

  it('deliver private events after the auth event, sent as existing clients send it', async () => {
    const pusher = pusherClient();
    try {
      const user = await newUser(sandbox);
      // Connected by now, or later: while the user was made, the server was free to answer.
      await new Promise<void>((resolve) => {
        if (pusher.connection.state === 'connected') resolve();
        else pusher.connection.bind('connected', () => resolve());
      });
      const authenticated = new Promise<void>((resolve) =>
        pusher.bind('quoine:auth_success', () => resolve()),
      );
      const jwt = await signServiceAuth(user, { path: '/realtime' });
      pusher.send_event('quoine:auth_request', {
        path: '/realtime',
        headers: { 'X-Quoine-Auth': jwt },
      });
      await authenticated;
      const orders: unknown[] = [];
      await new Promise<void>((resolve) => {
        const channel = pusher.subscribe('user_account_jpy_orders');
        channel.bind('pusher:subscription_succeeded', () => resolve());
        channel.bind('updated', (data: unknown) => orders.push(data));
      });
      const product_id = await freshProduct(trading);
      const placed = await place(user.call, { product_id, price: '4000000', quantity: '0.001' });
      const deadline = Date.now() + 5000;
      while (orders.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(orders.map((order) => channelPayloadSchemas.userOrders.parse(order).id)).toEqual([
        placed.id,
      ]);
    } finally {
      pusher.disconnect();
    }
  });
});
