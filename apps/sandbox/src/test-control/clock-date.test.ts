import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ testControl: true });
});
afterAll(() => sandbox?.close());

const dateOf = async (path: string) => {
  const answer = await fetch(`${sandbox.exchangeUrl}${path}`);
  await answer.arrayBuffer();
  return Date.parse(answer.headers.get('date') ?? '');
};

describe("the answers' Date", () => {
  it('is the wall clock until test control moves the clock, then the moved clock', async () => {
    expect(Math.abs((await dateOf('/products')) - Date.now())).toBeLessThan(2000);
    const moved = await fetch(`${sandbox.exchangeUrl}/test/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance_seconds: 86_400 }),
    });
    const { now } = (await moved.json()) as { now: number };
    // An answer read from Fastify's routes, then the same public read kept from before.
    for (const path of ['/products/1', '/products/1']) {
      expect(Math.abs((await dateOf(path)) - now * 1000)).toBeLessThan(2000);
    }
  });
});
