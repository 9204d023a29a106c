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
import { WebSocketServer } from 'ws';
import { type Subscribers, startSubscribers } from './subscribers.js';

const subscriberCount = 1_000;
/** The processes the subscribers are spread over, as real ones are over many machines. */
const subscriberProcesses = 2;
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
  /** The channels a client joins once connected; none for the bare server. */
  channels: string[];
  publish(data: string): void;
  close(): Promise<void>;
}

/** Wall-clock ms, comparable across processes: the subscribers time frames against it. */
const now = () => performance.timeOrigin + performance.now();

async function fanOut(name: string, target: Target, subscribers: Subscribers): Promise<Row> {
  await subscribers.connect(target.url, subscriberCount, target.channels);
  /** Waits until `expected` frames arrived, or 30 s passed; what arrived, and when the last. */
  const settle = async (expected: number) => {
    const deadline = performance.now() + 30_000;
    let stats = await subscribers.stats();
    while (stats.received < expected && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stats = await subscribers.stats();
    }
    return stats;
  };
  const perSecond: number[] = [];
  let lost = 0;
  let latencies: number[];
  try {
    for (let round = 0; round < rounds; round++) {
      await subscribers.reset();
      const started = now();
      for (let n = 0; n < eventsPerRound; n++) {
        target.publish(JSON.stringify({ sent: now(), id: n }));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const expected = eventsPerRound * subscriberCount;
      const { received, lastAt } = await settle(expected);
      perSecond.push(received / ((lastAt - started) / 1000));
      lost += expected - received;
    }
    await subscribers.reset();
    for (let n = 0; n < pacedEvents; n++) {
      target.publish(JSON.stringify({ sent: now(), id: n }));
      await new Promise((resolve) => setTimeout(resolve, paceMs));
    }
    await settle(pacedEvents * subscriberCount);
    const paced = await subscribers.stats(true);
    lost += pacedEvents * subscriberCount - paced.received;
    latencies = paced.latencies;
  } finally {
    await subscribers.disconnect();
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
    channels: [channel],
    publish: (data) => sandbox.events.publish([{ key: channel, channel, event: 'created', data }]),
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
    channels: [],
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
  const subscribers = await startSubscribers(subscriberProcesses);
  let bare: Row;
  let sandbox: Row;
  try {
    bare = await fanOut('bare `ws` broadcast (the floor)', await bareTarget(), subscribers);
    sandbox = await fanOut('sandbox: hub and Pusher protocol', await sandboxTarget(), subscribers);
  } finally {
    subscribers.stop();
  }
  const share = Math.round((sandbox.deliveredPerSecond / bare.deliveredPerSecond) * 100);
  return [
    '## Events',
    '',
    `${subscriberCount.toLocaleString('en')} subscribers of one public channel on loopback, in ${subscriberProcesses} processes of their own beside the server's. The rate: ${eventsPerRound} events published back to back, median of ${rounds} rounds. The latency, from publish to a subscriber's receipt over every delivery: ${pacedEvents} events, one every ${paceMs} ms (${((1000 / paceMs) * subscriberCount).toLocaleString('en')} deliveries/s).`,
    '',
    '| server | events delivered/s | p50 | p99 | lost |',
    '| --- | --- | --- | --- | --- |',
    tableRow(bare),
    tableRow(sandbox),
    '',
    `The sandbox delivers ${share}% of the bare server's rate. Targets: at least 80% of it, p99 at most 20 ms.`,
  ].join('\n');
}
