/**
 * The exchange's websocket channels, typed by the contract: subscribe to a channel by name,
 * receive its payloads with every decimal as an exact decimal string, through a callback or
 * an async iterator. The connection comes back by itself; after a reconnect each subscription
 * is told the span it may have missed, so a caller can read it back over REST.
 */
import {
  type ChannelAddress,
  type ChannelName,
  type ChannelParameters,
  type ChannelPayloads,
  channelAddress,
  channels,
  protocolEvents,
} from '@exchange-kit/contract/events';
import { type DecimalPlan, normaliseDecimals, parseJson } from '@exchange-kit/core';

/** The part of the standard WebSocket the client uses: browsers', Node 22's, or `ws`'s. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(
    type: 'close',
    listener: (event: { code: number; reason: string }) => void,
  ): void;
  addEventListener(type: 'error', listener: () => void): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface EventsOptions {
  /** The events endpoint, `ws://host:port/app/LiquidTapClient`. */
  url: string;
  /**
   * The WebSocket class: the global one where there is one (browsers, Node 22 and later);
   * on Node 20 pass `WebSocket` from the `ws` package.
   */
  WebSocket?: WebSocketConstructor;
  /** The first wait before reconnecting, doubled on each failure up to `maxReconnectDelayMs`. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** How long a ping waits for the server's pong before the connection is given up. */
  pongTimeoutMs?: number;
  /**
   * A fresh X-Service-Auth JWT signed for the path `/realtime`, for the private channels:
   * sent in `quoine:auth_request` on every connection. Without it only public channels can be
   * subscribed. It needs the token's secret: keep it on a server.
   */
  authenticate?: () => Promise<string>;
}

/** One event of a channel, its payload parsed and its decimals exact. */
export interface ChannelEvent<Name extends ChannelName> {
  kind: 'event';
  channel: Name;
  address: ChannelAddress<Name>;
  /** The Pusher event name, as `created` or `updated`. */
  event: string;
  data: ChannelPayloads[Name];
}

/**
 * The connection was lost and came back: events published between `since` (the last event
 * received, or the subscription) and `until` (subscribed again) may be missing. Read that span
 * back over REST (the channel's reference page names the read).
 */
export interface ChannelGap<Name extends ChannelName> {
  kind: 'gap';
  channel: Name;
  address: ChannelAddress<Name>;
  /** Milliseconds since the epoch. */
  since: number;
  until: number;
}

export type ChannelMessage<Name extends ChannelName> = ChannelEvent<Name> | ChannelGap<Name>;

/** The server refused a subscription or closed the connection for good. */
export class EventsError extends Error {
  override name = 'EventsError';
  constructor(
    message: string,
    /** The close code of the connection, when it was closed. */
    readonly code?: number,
  ) {
    super(message);
  }
}

export interface Subscription<Name extends ChannelName>
  extends AsyncIterable<ChannelMessage<Name>> {
  readonly address: ChannelAddress<Name>;
  /** Resolves once the server confirmed the subscription; rejects if it refused it. */
  readonly ready: Promise<void>;
  /** Calls `listener` with every event and gap; returns what stops it. */
  on(listener: (message: ChannelMessage<Name>) => void): () => void;
  /** Leaves the channel; an iterator over it ends. */
  close(): void;
}

export interface EventsClient {
  subscribe<Name extends ChannelName>(
    name: Name,
    parameters: ChannelParameters<Name>,
  ): Subscription<Name>;
  /** Closes the connection and every subscription. */
  close(): void;
}

const OPEN = 1;
const maxQueued = 10_000;

interface Entry {
  name: ChannelName;
  private: boolean;
  address: string;
  decimals: DecimalPlan | null;
  listeners: Set<(message: ChannelMessage<ChannelName>) => void>;
  /** When the last event arrived or the subscription began: where a gap would start. */
  lastHeard: number;
  subscribedOnce: boolean;
  confirm(): void;
  /** Ends the subscription; with an error, `ready` and its iterators reject with it. */
  end(error?: EventsError): void;
}

/** The data of a frame: Pusher carries it as a JSON string, sometimes as an object. */
const dataOf = (data: unknown) => (typeof data === 'string' ? parseJson(data) : data);

/** Codes 4000 to 4099 ask the client not to come back. */
const final = (code: number) => code >= 4000 && code < 4100;

export function createEventsClient(options: EventsOptions): EventsClient {
  const Socket =
    options.WebSocket ??
    (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ??
    undefined;
  const entries = new Map<string, Entry>();
  const firstDelay = options.reconnectDelayMs ?? 500;
  const maxDelay = options.maxReconnectDelayMs ?? 10_000;
  const pongTimeoutMs = options.pongTimeoutMs ?? 30_000;
  let socket: WebSocketLike | undefined;
  let connected = false;
  /** Whether private channels may be subscribed on this connection. */
  let authenticated = false;
  let closed = false;
  let delay = firstDelay;
  let reconnect: ReturnType<typeof setTimeout> | undefined;
  let silence: ReturnType<typeof setTimeout> | undefined;
  let pongDue: ReturnType<typeof setTimeout> | undefined;
  let activityTimeoutMs = 120_000;

  const send = (event: string, data: unknown) => {
    if (socket?.readyState === OPEN) socket.send(JSON.stringify({ event, data }));
  };

  const heard = () => {
    clearTimeout(pongDue);
    clearTimeout(silence);
    silence = setTimeout(() => {
      send(protocolEvents.ping, {});
      pongDue = setTimeout(() => socket?.close(4201, 'No pong'), pongTimeoutMs);
    }, activityTimeoutMs);
  };

  const deliver = (entry: Entry, message: ChannelMessage<ChannelName>) => {
    for (const listener of entry.listeners) listener(message);
  };

  const onFrame = (raw: unknown) => {
    heard();
    let frame: { event?: unknown; channel?: unknown; data?: unknown };
    try {
      frame = JSON.parse(String(raw));
    } catch {
      return;
    }
    const { event, channel } = frame;
    if (event === protocolEvents.connectionEstablished) {
      const greeting = dataOf(frame.data) as { activity_timeout?: number };
      activityTimeoutMs = (greeting.activity_timeout ?? 120) * 1000;
      connected = true;
      delay = firstDelay;
      for (const entry of entries.values()) if (!entry.private) subscribeTo(entry);
      heard();
      signIn(socket);
      return;
    }
    if (event === protocolEvents.authSuccess) {
      authenticated = true;
      for (const entry of entries.values()) if (entry.private) subscribeTo(entry);
      return;
    }
    if (event === protocolEvents.authFailure) {
      const { message } = (dataOf(frame.data) ?? {}) as { message?: string };
      refusePrivate(`The server refused the connection's authentication: ${message}`);
      return;
    }
    if (event === protocolEvents.ping) return send(protocolEvents.pong, {});
    if (event === protocolEvents.error) {
      const { message } = (dataOf(frame.data) ?? {}) as { message?: string };
      // A refused subscription names its channel in the message.
      for (const entry of entries.values()) {
        if (message?.includes(`"${entry.address}"`)) entry.end(new EventsError(message));
      }
      return;
    }
    if (typeof channel !== 'string' || typeof event !== 'string') return;
    const entry = entries.get(channel);
    if (!entry) return;
    if (event === 'pusher_internal:subscription_succeeded') {
      const now = Date.now();
      if (entry.subscribedOnce) {
        deliver(entry, {
          kind: 'gap',
          channel: entry.name,
          address: entry.address as ChannelAddress<ChannelName>,
          since: entry.lastHeard,
          until: now,
        });
      }
      entry.subscribedOnce = true;
      entry.lastHeard = now;
      entry.confirm();
      return;
    }
    if (event.startsWith('pusher')) return;
    const parsed = dataOf(frame.data);
    const data = entry.decimals ? normaliseDecimals(parsed, entry.decimals) : parsed;
    entry.lastHeard = Date.now();
    deliver(entry, {
      kind: 'event',
      channel: entry.name,
      address: entry.address as ChannelAddress<ChannelName>,
      event,
      data: data as ChannelPayloads[ChannelName],
    });
  };

  const subscribeTo = (entry: Entry) => send(protocolEvents.subscribe, { channel: entry.address });

  const refusePrivate = (message: string) => {
    for (const entry of [...entries.values()]) {
      if (entry.private) entry.end(new EventsError(message));
    }
  };

  /** Authenticates the connection `current` for the private channels, when it can. */
  const signIn = (current: WebSocketLike | undefined) => {
    if (!options.authenticate) {
      refusePrivate('A private channel needs the `authenticate` option (a token on a server)');
      return;
    }
    options.authenticate().then(
      (jwt) => {
        if (socket !== current) return;
        send(protocolEvents.authRequest, { path: '/realtime', headers: { 'X-Service-Auth': jwt } });
      },
      (error: unknown) => refusePrivate(`Signing the authentication failed: ${String(error)}`),
    );
  };

  const connect = () => {
    if (closed || socket || entries.size === 0) return;
    if (!Socket) {
      const error = new EventsError(
        'No WebSocket class: on Node 20, pass `WebSocket` from the `ws` package in the options',
      );
      for (const entry of [...entries.values()]) entry.end(error);
      return;
    }
    const current = new Socket(options.url);
    socket = current;
    current.addEventListener('message', (message) => onFrame(message.data));
    // A failed connection is closed too: the close event decides what comes next.
    current.addEventListener('error', () => {});
    current.addEventListener('close', ({ code, reason }) => {
      if (socket !== current) return;
      socket = undefined;
      connected = false;
      authenticated = false;
      clearTimeout(silence);
      clearTimeout(pongDue);
      if (closed) return;
      if (final(code)) {
        const error = new EventsError(`The server closed the connection: ${reason}`, code);
        for (const entry of [...entries.values()]) entry.end(error);
        return;
      }
      reconnect = setTimeout(connect, delay);
      delay = Math.min(delay * 2, maxDelay);
    });
  };

  return {
    subscribe<Name extends ChannelName>(name: Name, parameters: ChannelParameters<Name>) {
      const address = channelAddress(name, parameters);
      if (entries.has(address)) {
        throw new EventsError(`Already subscribed to ${address}: close that subscription first`);
      }
      const wakers = new Set<() => void>();
      let ended = false;
      let failure: EventsError | undefined;
      let confirm = () => {};
      let refuse = (_error: EventsError) => {};
      const ready = new Promise<void>((resolve, reject) => {
        confirm = resolve;
        refuse = reject;
      });
      // A refusal also reaches the iterators, and whoever awaits `ready`.
      ready.catch(() => {});
      const end = (error?: EventsError) => {
        if (ended) return;
        ended = true;
        failure = error;
        if (entries.get(address) === entry) entries.delete(address);
        if (error) refuse(error);
        for (const wake of wakers) wake();
      };
      const entry: Entry = {
        name,
        private: channels[name].private,
        address,
        decimals: (channels[name].decimals ?? null) as DecimalPlan | null,
        listeners: new Set(),
        lastHeard: Date.now(),
        subscribedOnce: false,
        confirm: () => confirm(),
        end,
      };
      // Kept from the subscription on until an iterator takes them, so a caller may subscribe,
      // make the calls whose events it awaits, then start reading; a reader far behind loses
      // the oldest.
      let backlog: ChannelMessage<Name>[] | undefined = [];
      const keep = (message: ChannelMessage<ChannelName>) => {
        backlog?.push(message as ChannelMessage<Name>);
        if (backlog && backlog.length > maxQueued) backlog.shift();
      };
      entry.listeners.add(keep);
      entries.set(address, entry);
      if (connected && (!entry.private || authenticated)) subscribeTo(entry);
      else if (connected && !options.authenticate) signIn(socket);
      else connect();
      return {
        address,
        ready,
        on(listener) {
          const wrapped = listener as (message: ChannelMessage<ChannelName>) => void;
          entry.listeners.add(wrapped);
          return () => entry.listeners.delete(wrapped);
        },
        close() {
          send(protocolEvents.unsubscribe, { channel: address });
          end();
        },
        async *[Symbol.asyncIterator]() {
          // The first iterator starts with what arrived since the subscription; any later one
          // from the moment it starts.
          const queue: ChannelMessage<Name>[] = backlog ?? [];
          backlog = undefined;
          entry.listeners.delete(keep);
          let wake = () => {};
          const listener = (message: ChannelMessage<ChannelName>) => {
            queue.push(message as ChannelMessage<Name>);
            if (queue.length > maxQueued) queue.shift();
            wake();
          };
          entry.listeners.add(listener);
          try {
            for (;;) {
              const next = queue.shift();
              if (next) {
                yield next;
                continue;
              }
              if (ended) {
                if (failure) throw failure;
                return;
              }
              await new Promise<void>((resolve) => {
                wake = resolve;
                wakers.add(resolve);
              });
              wakers.delete(wake);
            }
          } finally {
            entry.listeners.delete(listener);
          }
        },
      };
    },
    close() {
      closed = true;
      clearTimeout(reconnect);
      clearTimeout(silence);
      clearTimeout(pongDue);
      for (const entry of [...entries.values()]) entry.end();
      socket?.close(1000, 'Closed by the client');
      socket = undefined;
    },
  };
}
