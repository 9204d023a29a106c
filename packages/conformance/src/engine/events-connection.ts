/**
 * The suite's websocket client of the events (spec/exchange.asyncapi.yaml): one Pusher
 * connection that keeps every frame the server sent, in order, so a check can wait for the
 * answer it expects and then look at everything that came before or after it.
 */
import { eventsPath, protocolEvents } from '@exchange-kit/contract/events';
import WebSocket from 'ws';
import { Failure, Skip } from './outcome.js';
import type { Target } from './target.js';

/** Long enough for a loaded machine; a missing answer costs this much once per check. */
const answerDeadlineMs = 5_000;

/** A frame the server sent: its event, its channel and its `data`, parsed when it is JSON. */
export interface ReceivedFrame {
  /** Its place among the frames of the connection, from 0. */
  index: number;
  event: string;
  channel?: string;
  data: unknown;
  raw: string;
}

/**
 * The events URL: `target.eventsUrl` when given, else the exchange's host at the AsyncAPI
 * document's path, with `?protocol=7` as existing clients connect.
 */
export function eventsUrlOf(target: Target): string {
  if (target.eventsUrl) return target.eventsUrl;
  const url = new URL(eventsPath, target.exchangeUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = '?protocol=7';
  return url.href;
}

function readFrame(raw: string, index: number): ReceivedFrame {
  let message: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null) message = parsed as Record<string, unknown>;
  } catch {}
  let data = message.data;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {}
  }
  return {
    index,
    event: String(message.event ?? ''),
    ...(typeof message.channel === 'string' ? { channel: message.channel } : {}),
    data,
    raw,
  };
}

export class EventsConnection {
  readonly frames: ReceivedFrame[] = [];
  readonly #waiters = new Set<() => void>();
  #closed: string | undefined;

  private constructor(
    readonly url: string,
    private readonly socket: WebSocket,
  ) {
    socket.on('message', (raw) => {
      this.frames.push(readFrame(String(raw), this.frames.length));
      for (const wake of this.#waiters) wake();
    });
    socket.on('close', (code, reason) => {
      this.#closed = `the server closed the connection (${code} ${String(reason)})`;
      for (const wake of this.#waiters) wake();
    });
  }

  /**
   * Connects; a server without an events endpoint there (refused, or answered with a status
   * instead of the upgrade) throws Skip saying so.
   */
  static open(url: string): Promise<EventsConnection> {
    const noEndpoint = (why: string) =>
      new Skip(
        `no events endpoint at ${url} (${why}); give --events-url where the server serves them, or leave the events profile out`,
      );
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { handshakeTimeout: answerDeadlineMs });
      socket.once('unexpected-response', (_, response) => {
        socket.terminate();
        reject(noEndpoint(`answered ${response.statusCode} to the upgrade`));
      });
      // Every later error closes the socket, which the waiting checks see.
      socket.on('error', (error) => reject(noEndpoint(error.message)));
      // Listening before the handshake ends: the greeting may come in the same packet.
      const connection = new EventsConnection(url, socket);
      socket.once('open', () => resolve(connection));
    });
  }

  send(event: string, data: unknown): void {
    this.sendRaw(JSON.stringify({ event, data }));
  }

  sendRaw(frame: string): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(frame);
  }

  /** Subscribes to `channel`; the answer is waited for with `answer`. */
  subscribe(channel: string): number {
    const from = this.frames.length;
    this.send(protocolEvents.subscribe, { channel });
    return from;
  }

  /** Sends `quoine:auth_request` with `jwt` as X-Service-Auth. */
  authenticate(jwt: string): number {
    const from = this.frames.length;
    this.send(protocolEvents.authRequest, {
      path: '/realtime',
      headers: { 'X-Service-Auth': jwt },
    });
    return from;
  }

  /**
   * The first frame from index `from` on that `matches`; fails the check, naming `what` was
   * awaited and what came instead, when none arrives within the deadline.
   */
  async next(
    from: number,
    matches: (frame: ReceivedFrame) => boolean,
    what: string,
  ): Promise<ReceivedFrame> {
    const deadline = Date.now() + answerDeadlineMs;
    for (;;) {
      const found = this.frames.slice(from).find(matches);
      if (found) return found;
      const left = deadline - Date.now();
      if (this.#closed !== undefined || left <= 0) {
        const seen = this.frames.slice(from).map((frame) => frame.raw.slice(0, 200));
        throw new Failure(`no ${what} arrived within ${answerDeadlineMs / 1000} s`, {
          documented: what,
          received: this.#closed ?? (seen.length > 0 ? seen.join('\n') : 'nothing'),
        });
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
  }

  /** The answer to a subscription of `channel` sent at `from`: succeeded or an error. */
  answer(from: number, channel: string): Promise<ReceivedFrame> {
    return this.next(
      from,
      (frame) =>
        (frame.event === protocolEvents.subscriptionSucceeded && frame.channel === channel) ||
        frame.event === protocolEvents.error,
      `answer to the subscription of ${channel}`,
    );
  }

  close(): void {
    this.socket.close();
  }
}
