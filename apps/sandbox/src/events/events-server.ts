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
import { type Publication, publicationsOf } from './publications.js';
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
 * The publisher that hands each stored call's changes to the hub. A channel's whole state is
 * rendered once per batch of calls stored together, when the batch is sealed, and only for
 * the last call of the batch that changed it: the earlier ones' are superseded and never
 * rendered or sent. The publications of a stored batch's calls, which the sequencer runs one
 * after the other, gather here and leave together once it is done.
 */
export function hubPublisher(hub: EventHub, now: () => number): Publisher {
  let outgoing: Publication[] = [];
  /** The latest unrendered state of each key, from the calls decided since the last seal. */
  const latest = new Map<string, Publication>();
  const send = () => {
    const publications = outgoing;
    outgoing = [];
    hub.publish(publications.filter(isRendered));
  };
  return {
    decided(journal) {
      // Every call of the exchange passes here: with no subscriber, it costs one check.
      if (hub.idle) return undefined;
      const publications = publicationsOf(journal, now(), (address) => hub.listening(address));
      if (publications.length === 0) return undefined;
      for (const publication of publications) {
        if (publication.data === undefined) latest.set(publication.key, publication);
      }
      return () => {
        if (outgoing.length === 0) queueMicrotask(send);
        // A loop, not push(...): a call may change more channels than it may spread.
        for (const publication of publications) outgoing.push(publication);
      };
    },
    sealed() {
      for (const publication of latest.values()) {
        try {
          publication.data = publication.render();
        } catch {
          // Left unrendered, it is not sent: the channel's next state will be.
        }
      }
      latest.clear();
    },
  };
}

const isRendered = (publication: Publication): publication is Publication & { data: string } =>
  publication.data !== undefined;

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
      servePusherConnection(websocket, hub, times, authenticate, socket),
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
