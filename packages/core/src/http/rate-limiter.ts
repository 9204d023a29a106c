import { whenAborted } from './abort-listeners.js';

/**
 * A client-side limit of `calls` per `windowMs`, shared by every client in the process that
 * uses the same key (the API token id), so several clients of one token stay under the
 * server's limit together. A call over the limit waits for the oldest call to leave the window.
 */
export interface RateLimit {
  calls: number;
  windowMs: number;
}

/** The server's limit: 600 calls per 5 minutes per token. */
export const defaultRateLimit: RateLimit = { calls: 600, windowMs: 5 * 60_000 };

interface Window {
  starts: number[];
  queue: Promise<void>;
}

const windows = new Map<string, Window>();

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      stopWaiting();
      resolve();
    }, ms);
    const stopWaiting = whenAborted(signal, () => {
      clearTimeout(timer);
      reject(signal?.reason);
    });
  });
}

/** Waits until one more call fits the window for `key`, then counts it. */
export function takeRateLimitSlot(
  key: string,
  limit: RateLimit,
  signal?: AbortSignal,
  now: () => number = Date.now,
): Promise<void> {
  let window = windows.get(key);
  if (!window) {
    window = { starts: [], queue: Promise.resolve() };
    windows.set(key, window);
  }
  const state = window;
  // Callers queue so that they leave in the order they came.
  const turn = state.queue.then(async () => {
    for (;;) {
      const time = now();
      while (state.starts.length > 0 && (state.starts[0] as number) <= time - limit.windowMs)
        state.starts.shift();
      if (state.starts.length < limit.calls) {
        state.starts.push(time);
        return;
      }
      await sleep((state.starts[0] as number) + limit.windowMs - time, signal);
    }
  });
  state.queue = turn.catch(() => undefined);
  return turn;
}
