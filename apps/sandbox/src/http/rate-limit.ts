/** How many calls one caller may make in a window: the service allows a token 600 in 5 minutes. */
export interface RateLimit {
  calls: number;
  windowMs: number;
}

export const serviceRateLimit: RateLimit = { calls: 600, windowMs: 5 * 60 * 1000 };

/**
 * Limits of anonymous partner calls (session creation, calls made with a session id in the
 * body): they write to the store, and no token answers for them.
 */
export interface AnonymousRateLimits {
  /** Per partner public key named in the call. */
  perKey?: RateLimit;
  /** Per client address. */
  perAddress?: RateLimit;
}

// Far above what a widget or a test run sends, far below what fills a disk: with every
// field bounded, an address writes well under a megabyte a second.
export const defaultAnonymousRateLimits = {
  perKey: { calls: 1200, windowMs: 60_000 },
  perAddress: { calls: 600, windowMs: 60_000 },
} satisfies AnonymousRateLimits;

/** `CALLS/SECONDS` (as `600/300`) or `off`; undefined for off, an error message otherwise. */
export function parseRateLimit(flag: string, text: string): RateLimit | undefined {
  if (text === 'off') return undefined;
  const match = /^([1-9][0-9]{0,6})\/([1-9][0-9]{0,6})$/.exec(text);
  if (!match) throw new Error(`${flag}: "${text}" is neither off nor CALLS/SECONDS (as 600/300)`);
  return { calls: Number(match[1]), windowMs: Number(match[2]) * 1000 };
}

/** A limit as its option is written: `600/300`, or `off`. */
export function rateLimitText(limit: RateLimit | undefined): string {
  return limit ? `${limit.calls}/${limit.windowMs / 1000}` : 'off';
}

/** How a limit reads at start: `600/300 calls/seconds`, or `off`. */
export function describeRateLimit(limit: RateLimit | undefined): string {
  return limit ? `${rateLimitText(limit)} calls/seconds` : 'off';
}

/**
 * A sliding window per key (a token, a public key, an address): a call is let in while
 * fewer than `calls` were let in during the `windowMs` before it. Refused calls are not
 * counted, so waiting as told always works.
 */
export class RateLimiter {
  // The times of each key's calls in the window, oldest first.
  readonly #calls = new Map<string, number[]>();
  #sweptAt = 0;

  constructor(private readonly limit: RateLimit) {}

  /** Counts a call of `key` at `now`; when over the limit, the seconds to wait instead. */
  take(key: string, now: number): { retryAfterSeconds: number } | undefined {
    const refused = this.refusal(key, now);
    if (!refused) this.count(key, now);
    return refused;
  }

  /** Whether a call of `key` at `now` would be refused, without counting it. */
  refusal(key: string, now: number): { retryAfterSeconds: number } | undefined {
    this.#sweep(now);
    const times = this.#calls.get(key);
    if (!times) return undefined;
    const since = now - this.limit.windowMs;
    let expired = 0;
    while (expired < times.length && (times[expired] as number) <= since) expired++;
    if (expired > 0) times.splice(0, expired);
    if (times.length < this.limit.calls) return undefined;
    const oldest = times[0] as number;
    return { retryAfterSeconds: Math.max(1, Math.ceil((oldest - since) / 1000)) };
  }

  /** Counts a call of `key` at `now` that was let in. */
  count(key: string, now: number): void {
    const times = this.#calls.get(key);
    if (times) times.push(now);
    else this.#calls.set(key, [now]);
  }

  // Keys are chosen by callers (any public key, any address): a key not seen for a whole
  // window is forgotten, so the map holds only the keys of the last window.
  #sweep(now: number): void {
    if (now - this.#sweptAt < this.limit.windowMs) return;
    this.#sweptAt = now;
    const since = now - this.limit.windowMs;
    for (const [key, times] of this.#calls) {
      if ((times[times.length - 1] ?? 0) <= since) this.#calls.delete(key);
    }
  }
}
