import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextNonce } from './nonce.js';

describe('nextNonce', () => {
  it('is the current time in ms when time has moved on', () => {
    expect(nextNonce('token-a', 1_000)).toBe(1_000);
    expect(nextNonce('token-a', 5_000)).toBe(5_000);
  });

  it('rises strictly for one token even when the clock stands still or goes back', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.array(fc.integer({ min: 1, max: 2_000_000_000_000 }), { minLength: 2 }),
        (token, clock) => {
          const nonces = clock.map((now) => nextNonce(token, now));
          for (let i = 1; i < nonces.length; i++) {
            expect(nonces[i]).toBeGreaterThan(nonces[i - 1] as number);
          }
        },
      ),
    );
  });

  it('hundreds of concurrent calls in one millisecond get distinct, increasing nonces', async () => {
    const now = Date.now() + 10_000_000;
    const nonces = await Promise.all(
      Array.from({ length: 500 }, () => Promise.resolve().then(() => nextNonce('token-b', now))),
    );
    expect(new Set(nonces).size).toBe(500);
    expect(nonces).toEqual([...nonces].sort((a, b) => a - b));
    expect(nonces[0]).toBe(now);
    expect(nonces[499]).toBe(now + 499);
  });

  it('keeps one sequence per token, independent of other tokens', () => {
    const now = 3_000_000_000_000;
    expect(nextNonce('token-c', now)).toBe(now);
    expect(nextNonce('token-d', now)).toBe(now);
    expect(nextNonce('token-c', now)).toBe(now + 1);
  });
});
