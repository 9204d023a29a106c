/**
 * The websocket endpoint on the sandbox's own port: upgrades at the Pusher path, one
 * connection served per socket, and every stored call's changes published on the channels
 * they cover.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { eventsPath } from '@exchange-kit/contract/events';
import { WebSocketServer } from 'ws';
import { acceptNonce, authenticateRealtime } from '../http/auth.js';
import type { Publisher, Sequencer } from '../state/sequencer.js';
import { EventHub } from './hub.js';
import { latestStates, type Publication, publicationsOf } from './publications.js';
import {
  type ConnectionTimes,
  maxClientFrameBytes,
  servePusherConnection,
} from './pusher-connection.js';

export { eventsPath };

export const defaultConnectionTimes: ConnectionTimes = {
  activityTimeoutSeconds: 120,
  pongTimeoutMs: 30_000,
};

export interface EventsServer {
  hub: EventHub;
  /** Publishes what each stored call changed; the Sequencer runs it. */
  publisher: Publisher;
  /** Closes every websocket: they are the server's no longer once upgraded. */
  close(): void;
}

/**
 * The publisher that hands each stored call's changes to the hub. The sequencer runs the
 * publications of a stored batch's calls one after the other, in one go: they gather here and
 * leave together once it is done, so a side of the book that a burst of calls changed reaches
 * each subscriber once per batch, not once per call (see latestStates).
 */
export function hubPublisher(hub: EventHub, now: () => number): Publisher {
  let batch: Publication[] = [];
  const send = () => {
    const publications = latestStates(batch);
    batch = [];
    for (const { key, channel, event, data } of publications) {
      try {
        hub.publish(key, channel, event, data);
      } catch {
        // A subscriber's failure is the subscriber's: the others still hear of the batch.
      }
    }
  };
  return (journal) => {
    // Every call of the exchange passes here: with no subscriber, it costs one check.
    if (hub.idle) return undefined;
    const publications = publicationsOf(journal, now(), (address) => hub.listening(address));
    if (publications.length === 0) return undefined;
    return () => {
      if (batch.length === 0) queueMicrotask(send);
      batch.push(...publications);
    };
  };
}

export function serveEvents(
  server: Server,
  sequencer: Sequencer,
  now: () => number,
  times: ConnectionTimes = defaultConnectionTimes,
  hub = new EventHub(),
): EventsServer {
  // The nonce is spent as a call's is: in order, and stored before the connection is let in.
  const authenticate = (jwt: string) =>
    sequencer.run((journal) => {
      const { userId, nonce } = authenticateRealtime(journal.state, jwt, now());
      acceptNonce(journal.state, nonce);
      journal.nonce(nonce.scope, nonce.value);
      return userId;
    });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: maxClientFrameBytes });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? '/', 'http://sandbox').pathname;
    if (path !== eventsPath) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (websocket) =>
      servePusherConnection(websocket, hub, times, authenticate),
    );
  });
  return {
    hub,
    publisher: hubPublisher(hub, now),
    close() {
      for (const client of sockets.clients) client.close(1001, 'The sandbox is stopping');
      sockets.close();
    },
  };
}
