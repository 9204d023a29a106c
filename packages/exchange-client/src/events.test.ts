import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SandboxProcess, spawnSandbox, unusedPort } from '@exchange-kit/sandbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  type ChannelMessage,
  createEventsClient,
  createExchangeClient,
  createPublicClient,
  EventsError,
  type ExchangeClient,
} from './index.js';

// The real sandbox in its own process, on a data folder, so that it can be killed with
// SIGKILL mid-stream and started again on the same port and store.
let sandbox: SandboxProcess;
let dataDir: string;
let port: number;

const start = () =>
  spawnSandbox({ args: ['--data-dir', dataDir, '--port', String(port), '--test-control'] });

function clientOf(running: SandboxProcess, reconnectDelayMs = 200): ExchangeClient {
  return createExchangeClient({
    baseUrl: running.exchangeUrl,
    tokenId: running.tokenId,
    tokenSecret: running.tokenSecret,
    // Node 20 has no WebSocket of its own.
    events: { WebSocket, reconnectDelayMs, maxReconnectDelayMs: 1000 },
  });
}

const until = async (done: () => boolean, what: string, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'events-client-'));
  port = await unusedPort();
  sandbox = await start();
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('client.events', () => {
  it('delivers a public fill typed, its decimals exact, as the REST read has it', async () => {
    const client = clientOf(sandbox);
    const [btcjpy] = (await client.products.list()).filter(
      (p) => p.currency_pair_code === 'BTCJPY',
    );
    const subscription = client.events.subscribe('executionsCash', { pair: 'BTCJPY' });
    expect(subscription.address).toBe('executions_cash_btcjpy');
    await subscription.ready;
    const seen: ChannelMessage<'executionsCash'>[] = [];
    const reading = (async () => {
      for await (const message of subscription) {
        seen.push(message);
        if (seen.length === 1) return;
      }
    })();
    await client.orders.create({
      order_type: 'market',
      side: 'buy',
      product_id: String(btcjpy?.id),
      quantity: '0.001',
    });
    await reading;
    const [message] = seen;
    if (message?.kind !== 'event') throw new Error(`expected an event, got ${message?.kind}`);
    expect(message.event).toBe('created');
    expect(typeof message.data.price).toBe('string');
    const [newest] = (await client.executions.list({ product_id: String(btcjpy?.id) })).models;
    expect(message.data).toEqual(newest);
    client.events.close();
  });

  it("delivers the token's user its own orders on a private channel", async () => {
    const client = clientOf(sandbox);
    const [btcjpy] = (await client.products.list()).filter(
      (p) => p.currency_pair_code === 'BTCJPY',
    );
    const orders = client.events.subscribe('userOrders', { currency: 'jpy' });
    await orders.ready;
    const seen: ChannelMessage<'userOrders'>[] = [];
    orders.on((message) => seen.push(message));
    const placed = await client.orders.create({
      order_type: 'limit',
      side: 'buy',
      product_id: String(btcjpy?.id),
      quantity: '0.001',
      price: '1000',
    });
    await until(() => seen.length > 0, 'the order on its channel');
    expect(seen[0]?.kind === 'event' && seen[0].data).toEqual(
      await client.orders.get({ id: placed.id }),
    );
    await client.orders.cancel({ id: placed.id });
    client.events.close();
  });

  it('keeps for the first iterator what arrived between subscribing and reading', async () => {
    const client = clientOf(sandbox);
    const orders = client.events.subscribe('userOrders', { currency: 'jpy' });
    await orders.ready;
    const placed = await client.orders.create({
      order_type: 'limit',
      side: 'buy',
      product_id: 1,
      quantity: '0.001',
      price: '1000',
    });
    await client.orders.cancel({ id: placed.id });
    // Both changes were published before anyone read: the iterator still gets them, in order.
    const statuses: string[] = [];
    const reading = (async () => {
      for await (const message of orders) {
        if (message.kind !== 'event' || message.data.id !== placed.id) continue;
        statuses.push(message.data.status);
        if (message.data.status === 'cancelled') return;
      }
    })();
    await until(() => statuses.at(-1) === 'cancelled', 'both changes of the order');
    await reading;
    expect(statuses).toEqual(['live', 'cancelled']);
    client.events.close();
  });

  it('refuses a private channel without a way to authenticate', async () => {
    const events = createEventsClient({
      url: `${sandbox.exchangeUrl.replace('http', 'ws')}/app/LiquidTapClient`,
      WebSocket,
    });
    const subscription = events.subscribe('userOrders', { currency: 'jpy' });
    await expect(subscription.ready).rejects.toBeInstanceOf(EventsError);
    events.close();
  });

  it('comes back after the sandbox is killed, tells the gap, and the REST read fills it', async () => {
    const client = clientOf(sandbox, 300);
    const [btcjpy] = (await client.products.list()).filter(
      (p) => p.currency_pair_code === 'BTCJPY',
    );
    const product_id = String(btcjpy?.id);
    const subscription = client.events.subscribe('executionsCash', { pair: 'btcjpy' });
    await subscription.ready;
    const messages: ChannelMessage<'executionsCash'>[] = [];
    subscription.on((message) => messages.push(message));
    const buy = () =>
      client.orders.create({ order_type: 'market', side: 'buy', product_id, quantity: '0.001' });

    await buy();
    await until(() => messages.length === 1, 'the first fill');
    const first = messages[0] as { data: { id: number | string; created_at: number } };
    const firstSecond = Math.floor(
      Number((messages[0] as { data: { created_at: number } }).data.created_at),
    );

    process.kill(sandbox.pid as number, 'SIGKILL');
    await sandbox.stop();
    sandbox = await start();
    // Made while the client is away or coming back: the event may be missed, never the fill.
    const restarted = clientOf(sandbox);
    await restarted.orders.create({
      order_type: 'market',
      side: 'buy',
      product_id,
      quantity: '0.001',
    });
    await until(() => messages.some((m) => m.kind === 'gap'), 'a gap after the reconnect', 30_000);
    await restarted.orders.create({
      order_type: 'market',
      side: 'buy',
      product_id,
      quantity: '0.001',
    });
    await until(
      () =>
        messages.filter((m) => m.kind === 'event').length >= 2 && messages.at(-1)?.kind === 'event',
      'a fill after the reconnect',
    );

    const gap = messages.find((m) => m.kind === 'gap');
    if (gap?.kind !== 'gap') throw new Error('no gap');
    expect(gap.since).toBeLessThanOrEqual(gap.until);
    // What a bot does with the gap: read the span back, and union it with what it received.
    const repaired = await restarted.executions.since({
      product_id,
      timestamp: Math.floor(gap.since / 1000),
    });
    const known = new Set([
      ...messages.flatMap((m) => (m.kind === 'event' ? [String(m.data.id)] : [])),
      ...repaired.map((execution) => String(execution.id)),
    ]);
    // Every fill since the first one, as the store has them, is accounted for.
    const stored = (
      await restarted.executions.since({ product_id, timestamp: firstSecond })
    ).filter((execution) => Number(execution.id) >= Number(first.data.id));
    expect(stored.length).toBeGreaterThanOrEqual(3);
    expect(stored.filter((execution) => !known.has(String(execution.id)))).toEqual([]);
    client.events.close();
  }, 90_000);
});

describe('createPublicClient', () => {
  it('reads a book and its fills and follows a public channel with nothing signed', async () => {
    const headers: Headers[] = [];
    const client = createPublicClient({
      baseUrl: sandbox.exchangeUrl,
      // Records what each request carries: a public client has no secret to sign with.
      fetch: (input, init) => {
        headers.push(new Headers(init?.headers ?? (input as Request).headers));
        return fetch(input, init);
      },
      events: { WebSocket },
    });
    const trader = clientOf(sandbox);
    const [btcjpy] = (await client.products.list()).filter(
      (p) => p.currency_pair_code === 'BTCJPY',
    );
    const productId = String(btcjpy?.id);
    const book = await client.products.priceLevels(productId);
    expect(Object.keys(book)).toEqual(expect.arrayContaining(['buy_price_levels']));
    const fills = client.events.subscribe('executionsCash', { pair: 'BTCJPY' });
    await fills.ready;
    const seen: ChannelMessage<'executionsCash'>[] = [];
    fills.on((message) => seen.push(message));
    await trader.orders.create({
      order_type: 'market',
      side: 'buy',
      product_id: productId,
      quantity: '0.001',
    });
    await until(() => seen.length > 0, 'the fill on its channel');
    const [newest] = (await client.executions.list({ product_id: productId })).models;
    expect(seen[0]?.kind === 'event' && seen[0].data).toEqual(newest);
    expect(headers.length).toBeGreaterThanOrEqual(3);
    expect(headers.filter((sent) => sent.has('x-service-auth'))).toEqual([]);
    const orders = client.events.subscribe('userOrders', { currency: 'jpy' });
    await expect(orders.ready).rejects.toBeInstanceOf(EventsError);
    client.events.close();
    trader.events.close();
  });
});
