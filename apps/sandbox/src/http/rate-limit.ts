/** How many calls a token may make in a window: the service allows 600 in 5 minutes. */
export interface RateLimit {
  calls: number;
  windowMs: number;
}

export const serviceRateLimit: RateLimit = { calls: 600, windowMs: 5 * 60 * 1000 };

/**
 * A sliding window per token: a call is let in while fewer than `calls` were let in during
 * the `windowMs` before it. Refused calls are not counted, so waiting as told always works.
 */
export class TokenRateLimiter {
  // The times of each token's calls in the window, oldest first.
  readonly #calls = new Map<string, number[]>();

  constructor(private readonly limit: RateLimit) {}

  /** Counts a call of `tokenId` at `now`; when over the limit, the seconds to wait instead. */
  take(tokenId: string, now: number): { retryAfterSeconds: number } | undefined {
    let times = this.#calls.get(tokenId);
    if (!times) {
      times = [];
      this.#calls.set(tokenId, times);
    }
    const since = now - this.limit.windowMs;
    let expired = 0;
    while (expired < times.length && (times[expired] as number) <= since) expired++;
    if (expired > 0) times.splice(0, expired);
    if (times.length >= this.limit.calls) {
      const oldest = times[0] as number;
      return { retryAfterSeconds: Math.max(1, Math.ceil((oldest - since) / 1000)) };
    }
    times.push(now);
    return undefined;
  }
}
