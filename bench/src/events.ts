/**
 * Fan-out of one public channel to 1,000 websocket subscribers on loopback: the sandbox's
 * events endpoint (its hub and the Pusher protocol) beside a bare `ws` server that sends each
 * frame to every client, the floor any server built on `ws` stands on. Both send the same
 * frames to the same kind of client in the same run.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { eventsPath } from '@exchange-kit/contract/events';
import { startSandbox } from '@exchange-kit/sandbox/bench';
import { WebSocket, WebSocketServer } from 'ws';

const subscribers = 1_000;
/** Events published back to back in one round of the rate; each reaches every subscriber. */
const eventsPerRound = 50;
const rounds = 3;
/** The latency is taken apart from the rate, at a steady pace no server here falls behind. */
const pacedEvents = 50;
const paceMs = 200;
const channel = 'executions_cash_btcjpy';

interface Row {
  name: string;
  deliveredPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  lost: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

interface Target {
  url: string;
  /** What a client sends once connected, to join the channel; nothing for the bare server. */
  join?: string;
  publish(data: string): void;
  close(): Promise<void>;
}

/** Connects the subscribers, 100 at a time, each joined to the channel. */
async function connect(target: Target, onFrame: (raw: string) => void): Promise<WebSocket[]> {
  const clients: WebSocket[] = [];
  for (let n = 0; n < subscribers; n += 100) {
    const batch = Array.from({ length: 100 }, async () => {
      const client = new WebSocket(target.url);
      clients.push(client);
      await new Promise<void>((resolve, reject) => {
        client.once('error', reject);
        if (!target.join) {
          client.once('open', () => resolve());
          return;
        }
        client.on('message', function joined(raw) {
          const text = String(raw);
          if (text.includes('pusher:connection_established')) client.send(target.join as string);
          if (text.includes('pusher_internal:subscription_succeeded')) {
            client.off('message', joined);
            resolve();
          }
        });
      });
      client.on('message', (raw) => onFrame(String(raw)));
    });
    await Promise.all(batch);
  }
  return clients;
}

async function fanOut(name: string, target: Target): Promise<Row> {
  let latencies: number[] = [];
  let received = 0;
  const clients = await connect(target, (raw) => {
    const at = raw.indexOf('"sent\\":');
    if (at < 0) return;
    received++;
    latencies.push(performance.now() - Number.parseFloat(raw.slice(at + 8)));
  });
  const settle = async (expected: number, from: number) => {
    const deadline = from + 30_000;
    while (received < expected && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const perSecond: number[] = [];
  let lost = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      received = 0;
      const started = performance.now();
      for (let n = 0; n < eventsPerRound; n++) {
        target.publish(JSON.stringify({ sent: performance.now(), id: n }));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const expected = eventsPerRound * subscribers;
      await settle(expected, started);
      perSecond.push(received / ((performance.now() - started) / 1000));
      lost += expected - received;
    }
    received = 0;
    latencies = [];
    const started = performance.now();
    for (let n = 0; n < pacedEvents; n++) {
      target.publish(JSON.stringify({ sent: performance.now(), id: n }));
      await new Promise((resolve) => setTimeout(resolve, paceMs));
    }
    await settle(pacedEvents * subscribers, started);
    lost += pacedEvents * subscribers - received;
  } finally {
    for (const client of clients) client.terminate();
    await target.close();
  }
  const sorted = latencies.sort((a, b) => a - b);
  return {
    name,
    deliveredPerSecond: median(perSecond),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    lost,
  };
}

async function sandboxTarget(): Promise<Target> {
  const sandbox = await startSandbox({ port: 0, memory: true });
  const { port } = sandbox.server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}${eventsPath}?protocol=7`,
    join: JSON.stringify({ event: 'pusher:subscribe', data: { channel } }),
    publish: (data) => sandbox.events.publish(channel, channel, 'created', data),
    close: () => sandbox.close(),
  };
}

async function bareTarget(): Promise<Target> {
  const server = createServer();
  const sockets = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    publish: (data) => {
      const frame = JSON.stringify({ event: 'created', channel, data });
      for (const client of sockets.clients) client.send(frame);
    },
    close: async () => {
      sockets.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const cell = (ms: number) => `${ms.toFixed(1)} ms`;
const tableRow = (row: Row) =>
  `| ${row.name} | ${Math.round(row.deliveredPerSecond).toLocaleString('en')} | ${cell(row.p50Ms)} | ${cell(row.p99Ms)} | ${row.lost} |`;

export async function eventsBench(): Promise<string> {
  const bare = await fanOut('bare `ws` broadcast (the floor)', await bareTarget());
  const sandbox = await fanOut('sandbox: hub and Pusher protocol', await sandboxTarget());
  const share = Math.round((sandbox.deliveredPerSecond / bare.deliveredPerSecond) * 100);
  return [
    '## Events',
    '',
    `${subscribers.toLocaleString('en')} subscribers of one public channel on loopback, in the bench's own process. The rate: ${eventsPerRound} events published back to back, median of ${rounds} rounds. The latency, from publish to a subscriber's receipt over every delivery: ${pacedEvents} events, one every ${paceMs} ms (${((1000 / paceMs) * subscribers).toLocaleString('en')} deliveries/s).`,
    '',
    '| server | events delivered/s | p50 | p99 | lost |',
    '| --- | --- | --- | --- | --- |',
    tableRow(bare),
    tableRow(sandbox),
    '',
    `The sandbox delivers ${share}% of the bare server's rate. Targets: at least 80% of it, p99 at most 20 ms.`,
  ].join('\n');
}
