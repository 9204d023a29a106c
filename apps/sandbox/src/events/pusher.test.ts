/**
 * The websocket endpoint as clients meet it: pusher-js (a client no one here wrote) for the
 * public channels, and a bare `ws` client for the protocol's edges, against a sandbox on
 * loopback.
 */
import type { AddressInfo } from 'node:net';
import { channelPayloadSchemas } from '@exchange-kit/contract/events/schemas';
import { zListExecutionsResponse } from '@exchange-kit/contract/exchange/schemas';
import PusherModule from 'pusher-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { RunningSandbox } from '../server.js';
import { demoClient, startTestSandbox, valid } from '../test-support.js';
import { freshProduct, place, storedTrading, type TradingSandbox } from '../testing/trading.js';
import { eventsPath } from './events-server.js';

// pusher-js's types declare an ES module's default export, while its Node build is CommonJS
// whose module.exports is the class itself: that is what a default import gets at run time.
const Pusher = PusherModule as unknown as typeof PusherModule.default;

let sandbox: RunningSandbox;
let trading: TradingSandbox;
let url: string;

beforeAll(async () => {
  sandbox = await startTestSandbox({
    eventTimes: { activityTimeoutSeconds: 1, pongTimeoutMs: 300 },
  });
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
  const next = async (event: string, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = frames.findIndex((frame) => frame.event === event);
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
      activity_timeout: 1,
    });
    client.socket.close();
  });

  it('answers a ping with a pong, and closes a connection that answers no ping (4201)', async () => {
    const client = await rawClient();
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
    client.send('pusher:subscribe', { channel: 'user_account_jpy_orders' });
    expect((await client.next('pusher:error')).data).toMatchObject({
      message: expect.stringMatching(/^channel: .*private/),
    });
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
      sandbox.events.publish(channel, 'created', data);
      sent++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(sandbox.events.subscribers(channel)).toBe(1);
    (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await slow.closed).toBe(4100);
    // The steady subscriber received every event, the ones after the drop too.
    sandbox.events.publish(channel, 'created', '{"last":true}');
    for (let at = 0; at < sent; at++) await steady.next('created');
    expect((await steady.next('created')).data).toBe('{"last":true}');
    steady.socket.close();
  }, 30_000);
});

describe('public channels through pusher-js', () => {
  it('deliver each fill, the book side it changed and the product, once each, after the REST answer', async () => {
    const { port } = sandbox.server.address() as AddressInfo;
    const pusher = new Pusher('LiquidTapClient', {
      cluster: 'sandbox',
      wsHost: '127.0.0.1',
      wsPort: port,
      forceTLS: false,
      enabledTransports: ['ws'],
      disableStats: true,
    });
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
});
