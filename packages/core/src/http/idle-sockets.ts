import type { Agent, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface IdleSocketOptions {
  /** How long a kept-alive socket may sit unused before it is closed. */
  idleMs: number;
  /** How often the agent's free sockets are looked at; a socket closes within this of its time. */
  everyMs: number;
}

export interface IdleSockets {
  /** Called with each request: looks at the agent's sockets for as long as it holds any. */
  watch(): void;
  /** Notes the Keep-Alive timeout an answer announced, which may shorten its socket's idle time. */
  noteAnswer(response: IncomingMessage): void;
  readonly watching: boolean;
}

/**
 * Closes an agent's kept-alive sockets once they have been idle for `idleMs`, or for a second
 * less than the server's `Keep-Alive: timeout=N`, whichever is shorter: a socket reused at the
 * moment the server closes it fails a call that may not be sent again (a POST).
 *
 * An agent `timeout` would do the same with a timer per socket that every read and write
 * restarts, and listeners added and removed with every request: about a microsecond per call.
 * Here a timer looks at the free sockets every `everyMs` instead, and a socket whose byte
 * counts have not moved since an earlier look is idle since then; a call costs nothing.
 */
export function closeIdleSockets(agent: Agent, options: IdleSocketOptions): IdleSockets {
  const { idleMs, everyMs } = options;
  const lastSeen = new WeakMap<Socket, { bytes: number; since: number }>();
  const idleLimit = new WeakMap<Socket, number>();
  let timer: ReturnType<typeof setInterval> | undefined;

  function look() {
    const now = performance.now();
    let held = 0;
    for (const sockets of Object.values(agent.freeSockets)) {
      for (const socket of sockets ?? []) {
        held++;
        const bytes = socket.bytesRead + socket.bytesWritten;
        const seen = lastSeen.get(socket);
        if (seen?.bytes !== bytes) {
          lastSeen.set(socket, { bytes, since: now });
          continue;
        }
        // First seen idle at most `everyMs` after it was freed: closing `everyMs` early keeps
        // the whole idle time within the limit.
        const limit = idleLimit.get(socket) ?? idleMs;
        if (now - seen.since >= limit - everyMs) socket.destroy();
      }
    }
    for (const sockets of Object.values(agent.sockets)) held += sockets?.length ?? 0;
    if (held === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  return {
    watch() {
      timer ??= setInterval(look, everyMs).unref();
    },
    noteAnswer(response) {
      const announced = response.headers['keep-alive'];
      if (typeof announced !== 'string') return;
      const limit = keepAliveLimitMs(announced);
      if (limit !== undefined && limit < idleMs) idleLimit.set(response.socket as Socket, limit);
    },
    get watching() {
      return timer !== undefined;
    },
  };
}

// Node's servers say `timeout=5` on every answer: it is read once, not with each call.
let lastAnnounced = '';
let lastLimit: number | undefined;

/** A second less than the announced timeout, as Node's own agent allows itself. */
function keepAliveLimitMs(announced: string): number | undefined {
  if (announced === lastAnnounced) return lastLimit;
  const seconds = /(?:^|[\s,])timeout=(\d+)/i.exec(announced)?.[1];
  lastAnnounced = announced;
  lastLimit = seconds === undefined ? undefined : Math.max(Number(seconds) * 1000 - 1000, 0);
  return lastLimit;
}
