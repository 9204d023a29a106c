/**
 * One websocket connection speaking the Pusher protocol (version 7), as
 * spec/exchange.asyncapi.yaml writes it: the greeting, subscribing and unsubscribing,
 * ping and pong both ways, and errors that name what was wrong. What the client sends is read
 * with the contract's schemas of the protocol's events.
 */
import { randomInt } from 'node:crypto';
import type { Writable } from 'node:stream';
import { channelOf, channels, protocolEvents } from '@exchange-kit/contract/events';
import { protocolPayloadSchemas } from '@exchange-kit/contract/events/schemas';
import type { WebSocket } from 'ws';
import { type EventHub, type Subscriber, subscriptionKey } from './hub.js';

export interface ConnectionTimes {
  /** Seconds of silence after which either side pings; announced in the greeting. */
  activityTimeoutSeconds: number;
  /** How long a ping waits for any answer before the connection is closed. */
  pongTimeoutMs: number;
}

/** Pusher's "pong reply not received": the client should reconnect at once. */
const noPongCode = 4201;
/** The most a client's frame may hold; a subscription is a few hundred bytes. */
export const maxClientFrameBytes = 16 * 1024;

const frame = (event: string, data: unknown, channel?: string) =>
  JSON.stringify({ event, ...(channel === undefined ? {} : { channel }), data });

/** How a frame the hub encoded is sent: as text, which Pusher's events are. */
const textFrame = { binary: false } as const;

/** A socket id as Pusher writes one: two integers and a dot. */
const socketId = () => `${randomInt(1, 2 ** 31)}.${randomInt(1, 2 ** 31)}`;

/** What a client sent, read as `{ event, data }`; data may come as an object or a string. */
function readFrame(raw: string): { event: string; data: unknown } | string {
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch {
    return 'a frame must be a JSON object';
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return 'a frame must be a JSON object';
  }
  const { event, data } = message as { event?: unknown; data?: unknown };
  if (typeof event !== 'string') return 'event: must be a string';
  if (typeof data !== 'string') return { event, data: data ?? {} };
  try {
    return { event, data: JSON.parse(data) };
  } catch {
    return { event, data };
  }
}

const names = Object.fromEntries(
  Object.entries(protocolEvents).map(([message, event]) => [event, message]),
) as Record<string, keyof typeof protocolEvents>;

/**
 * Checks the JWT of a `quoine:auth_request` and spends its nonce: the user the connection then
 * acts for, or a rejection whose message says why not.
 */
export type RealtimeAuthenticator = (jwt: string) => Promise<number>;

/** Serves one connection until it closes. */
export function servePusherConnection(
  socket: WebSocket,
  hub: EventHub,
  times: ConnectionTimes,
  authenticate: RealtimeAuthenticator,
  /** The stream the websocket writes to, held while the hub sends it several frames. */
  wire?: Pick<Writable, 'cork' | 'uncork'>,
) {
  // The times the greeting announces are the connection's for its whole life.
  const { activityTimeoutSeconds, pongTimeoutMs } = times;
  /** Subscription keys by channel address. */
  const subscribed = new Map<string, string>();
  let userId: number | undefined;
  const leaveAll = () => {
    for (const key of subscribed.values()) hub.unsubscribe(key, subscriber);
    subscribed.clear();
  };
  const subscriber: Subscriber = {
    get bufferedAmount() {
      return socket.bufferedAmount;
    },
    send: (frame) => socket.send(frame, textFrame),
    cork: () => wire?.cork(),
    uncork: () => wire?.uncork(),
    // Out of every channel at once: nothing more piles up while the close frame waits.
    drop: (code, reason) => {
      leaveAll();
      socket.close(code, reason);
    },
  };
  const send = (event: string, data: unknown, channel?: string) => {
    if (socket.readyState === socket.OPEN) socket.send(frame(event, data, channel));
  };
  const refuse = (message: string) => send(protocolEvents.error, { code: null, message });

  let pongDue: NodeJS.Timeout | undefined;
  let silence: NodeJS.Timeout | undefined;
  const heardFrom = () => {
    clearTimeout(pongDue);
    pongDue = undefined;
    clearTimeout(silence);
    silence = setTimeout(() => {
      send(protocolEvents.ping, {});
      pongDue = setTimeout(
        () => socket.close(noPongCode, 'No pong within the activity timeout'),
        pongTimeoutMs,
      );
    }, activityTimeoutSeconds * 1000);
  };

  const handlers: Partial<Record<keyof typeof protocolEvents, (data: never) => void>> = {
    subscribe: ({ channel }: { channel: string }) => {
      const found = channelOf(channel);
      if (!found) return refuse(`channel: no channel is named "${channel}"`);
      const owner = channels[found.name].private ? userId : undefined;
      if (channels[found.name].private) {
        if (owner === undefined) {
          return refuse(`channel: "${channel}" is private; authenticate the connection first`);
        }
        const named = found.parameters.userId;
        if (named !== undefined && named !== String(owner)) {
          return refuse(`channel: "${channel}" is another user's`);
        }
      }
      if (!subscribed.has(channel)) {
        const key = subscriptionKey(channel, owner);
        subscribed.set(channel, key);
        hub.subscribe(key, subscriber);
      }
      send('pusher_internal:subscription_succeeded', '{}', channel);
    },
    unsubscribe: ({ channel }: { channel: string }) => {
      const key = subscribed.get(channel);
      if (key === undefined) return;
      subscribed.delete(channel);
      hub.unsubscribe(key, subscriber);
    },
    authRequest: ({ headers }: { headers: Record<string, string | undefined> }) => {
      const jwt = headers['X-Service-Auth'] ?? headers['X-Quoine-Auth'];
      if (jwt === undefined) {
        return send(protocolEvents.authFailure, { message: 'headers: X-Service-Auth is missing' });
      }
      authenticate(jwt).then(
        (user) => {
          // Private channels subscribed as another user are left: they were that user's.
          if (userId !== undefined && userId !== user) leaveAll();
          userId = user;
          send(protocolEvents.authSuccess, {});
        },
        (error: unknown) => {
          const message = error instanceof Error ? error.message : 'API Authentication failed';
          send(protocolEvents.authFailure, { message });
        },
      );
    },
    ping: () => send(protocolEvents.pong, '{}'),
    pong: () => {},
  };

  socket.on('message', (raw, isBinary) => {
    heardFrom();
    if (isBinary) return refuse('a frame must be text');
    const read = readFrame(String(raw));
    if (typeof read === 'string') return refuse(read);
    const message = names[read.event];
    const handle = message && handlers[message];
    if (!message || !handle) return refuse(`event: "${read.event}" is not one a client sends`);
    const parsed = protocolPayloadSchemas[message].safeParse(read.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'data';
      return refuse(`${field}: ${issue?.message ?? 'invalid'}`);
    }
    handle(parsed.data as never);
  });
  socket.on('close', () => {
    clearTimeout(pongDue);
    clearTimeout(silence);
    leaveAll();
  });
  socket.on('error', () => socket.terminate());

  send(
    protocolEvents.connectionEstablished,
    JSON.stringify({ socket_id: socketId(), activity_timeout: activityTimeoutSeconds }),
  );
  heardFrom();
}
