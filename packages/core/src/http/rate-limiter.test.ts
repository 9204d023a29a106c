import { afterEach, describe, expect, it, vi } from 'vitest';
import { takeRateLimitSlot } from './rate-limiter.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('takeRateLimitSlot', () => {
  it('lets `calls` through per window and holds the next until the oldest leaves it', async () => {
    vi.useFakeTimers();
    const limit = { calls: 2, windowMs: 1_000 };
    const passed: number[] = [];
    const calls = [1, 2, 3].map((n) =>
      takeRateLimitSlot('token-rl', limit).then(() => passed.push(n)),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(passed).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(999);
    expect(passed).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(calls);
    expect(passed).toEqual([1, 2, 3]);
  });

  it('shares one window per key and keeps keys apart', async () => {
    vi.useFakeTimers();
    const limit = { calls: 1, windowMs: 1_000 };
    await takeRateLimitSlot('token-a', limit);
    let second = false;
    void takeRateLimitSlot('token-a', limit).then(() => {
      second = true;
    });
    await takeRateLimitSlot('token-b', limit);
    await vi.advanceTimersByTimeAsync(10);
    expect(second).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(second).toBe(true);
  });
});
