/**
 * Websocket subscribers in a process of their own, driven over IPC by the bench: the server
 * under test does not share its thread with the clients that read its frames, as no real
 * subscriber would. Frames that carry `"sent":<ms since the epoch>` are timed on arrival
 * against the same wall clock the publisher read.
 */
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import type { SubscriberCommand, SubscriberReply } from './subscribers.js';

const now = () => performance.timeOrigin + performance.now();
let clients: WebSocket[] = [];
let received = 0;
let lastAt = 0;
let latencies: number[] = [];

const reply = (message: SubscriberReply) => process.send?.(message);

function onFrame(raw: string) {
  received++;
  lastAt = now();
  const at = raw.indexOf('"sent\\":');
  if (at >= 0) latencies.push(lastAt - Number.parseFloat(raw.slice(at + 8)));
}

/** Opens one subscriber and resolves once it has joined every channel asked for. */
function open(url: string, joins: string[]): Promise<WebSocket> {
  const client = new WebSocket(url);
  clients.push(client);
  return new Promise((resolve, reject) => {
    client.once('error', reject);
    client.on('message', (data) => onFrame(String(data)));
    let waiting = joins.length;
    if (waiting === 0) {
      client.once('open', () => resolve(client));
      return;
    }
    client.on('message', function joining(data) {
      const text = String(data);
      if (text.includes('pusher:connection_established'))
        for (const join of joins) client.send(join);
      if (text.includes('pusher_internal:subscription_succeeded') && --waiting === 0) {
        client.off('message', joining);
        resolve(client);
      }
    });
  });
}

async function connect(url: string, count: number, channels: string[]) {
  const joins = channels.map((channel) =>
    JSON.stringify({ event: 'pusher:subscribe', data: { channel } }),
  );
  // A hundred at a time: a thousand handshakes at once overflow the listen backlog.
  for (let n = 0; n < count; n += 100) {
    await Promise.all(Array.from({ length: Math.min(100, count - n) }, () => open(url, joins)));
  }
  // The greetings and acknowledgements are not deliveries.
  received = 0;
  latencies = [];
}

process.on('message', async (command: SubscriberCommand) => {
  switch (command.type) {
    case 'connect':
      await connect(command.url, command.count, command.channels);
      reply({ type: 'connected', open: clients.length });
      return;
    case 'reset':
      received = 0;
      lastAt = 0;
      latencies = [];
      reply({ type: 'reset' });
      return;
    case 'stats':
      reply({ type: 'stats', received, lastAt, latencies: command.latencies ? latencies : [] });
      return;
    case 'disconnect':
      for (const client of clients) client.terminate();
      clients = [];
      reply({ type: 'disconnected' });
      return;
  }
});
reply({ type: 'started' });
