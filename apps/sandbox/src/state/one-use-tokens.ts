/**
 * The X-Service-Auth JWTs without nonce accepted lately, each good for one call. A JWT is
 * remembered until its `iat` leaves the window, after which it is refused as stale anyway, so
 * what is kept never outgrows the calls of one window.
 *
 * Memory does not outlive a restart; the store does. The last `iat` accepted per token is kept
 * with the nonces (scope `iat:token:<id>`), and a JWT whose `iat` is no later than the one the
 * store held when this process first met the token is refused: it may have been seen before
 * the restart. A restart within the window therefore reopens no replay; it costs a client whose
 * JWT was signed in that second, or by a clock running ahead, one refusal.
 */
export class OneUseTokens {
  readonly #seen = new Map<string, number>();
  readonly #loadedIat = new Map<string, bigint>();
  #sweepAt = 0;

  /**
   * Whether the JWT known by `key` may have been accepted already. `stored` is the last `iat`
   * of its scope the state holds: the first time this process meets the scope, that is what
   * was accepted before it started.
   */
  seen(scope: string, key: string, iat: bigint, stored: bigint | undefined): boolean {
    let before = this.#loadedIat.get(scope);
    if (before === undefined) {
      before = stored ?? -1n;
      this.#loadedIat.set(scope, before);
    }
    return iat <= before || this.#seen.has(key);
  }

  /** Spends the JWT known by `key` until `expiresAtMs`, and forgets those past theirs. */
  spend(key: string, expiresAtMs: number, now: number): void {
    if (now >= this.#sweepAt) {
      for (const [kept, expiry] of this.#seen) if (expiry <= now) this.#seen.delete(kept);
      this.#sweepAt = now + 1000;
    }
    this.#seen.set(key, expiresAtMs);
  }

  get size(): number {
    return this.#seen.size;
  }
}
