import type { RetryEvent } from '@exchange-kit/core';
import { type SandboxProcess, startSandboxProcess } from '@exchange-kit/sandbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExchangeClient, type ExchangeClientOptions } from './index.js';

// The real sandbox in its own process, on loopback. One client and one token make every call,
// all at once: the Node transport spreads them over many sockets, so they reach the server in
// another order than they were signed in, and the nonce check refuses the late ones.
let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess();
}, 120_000);
afterAll(() => sandbox?.stop());

const run = `cc-${process.pid}-${Date.now().toString(36)}`;
const calls = 1_000;

function clientWithRetries(options: Partial<ExchangeClientOptions> = {}) {
  const retries: RetryEvent[] = [];
  const client = createExchangeClient({
    baseUrl: sandbox.exchangeUrl,
    tokenId: sandbox.tokenId,
    tokenSecret: sandbox.tokenSecret,
    hooks: { onRetry: (event) => retries.push(event) },
    // With at most 8 resends and 2 retries per call, this bounds every call in time; a call at
    // the back of a thousand on a loaded machine waits its turn for seconds, not for a fault.
    timeoutMs: 30_000,
    ...options,
  });
  return { client, retries };
}

// Far below the book, so every order rests; small, so a thousand fit the demo balance.
const buy = (clientOrderId?: string) => ({
  order_type: 'limit' as const,
  product_id: 1,
  side: 'buy' as const,
  quantity: '0.001',
  price: '1000',
  ...(clientOrderId === undefined ? {} : { client_order_id: clientOrderId }),
});

/** A thousand calls of every kind the token makes, all started before any is answered. */
async function burst(client: ReturnType<typeof clientWithRetries>['client'], tag: string) {
  const resting = await client.orders.create(buy(`${run}-${tag}-resting`));
  const settled = await Promise.allSettled(
    Array.from({ length: calls }, (_, n): Promise<unknown> => {
      switch (n % 5) {
        case 0:
          return client.orders.create(buy());
        case 1:
          return client.orders.create(buy(`${run}-${tag}-${n}`));
        case 2:
          return client.orders.get({ id: resting.id });
        case 3:
          return client.orders.edit({ id: resting.id }, { price: 1000 + (n % 7) });
        default:
          return client.orders.list({ product_id: 1, limit: 5 });
      }
    }),
  );
  const failures = settled.flatMap((result) =>
    result.status === 'rejected' ? [String(result.reason)] : [],
  );
  return failures;
}

describe('one client, one token, a thousand concurrent calls against the sandbox', () => {
  it('answers every call: the ones refused for their nonce are signed anew and resent', async () => {
    const { client, retries } = clientWithRetries();
    expect(await burst(client, 'n')).toEqual([]);
    expect(retries.every((event) => event.reason === 'nonce too small')).toBe(true);
    // Each order placed exactly once: a refused placement was not executed, its resend was.
    const placed = await client.orders.list({ product_id: 1, limit: 1000 });
    const ours = placed.models.filter((order) => order.client_order_id?.startsWith(`${run}-n-`));
    expect(ours).toHaveLength(calls / 5 + 1);
  }, 120_000);

  it('answers every call through a given fetch too, which signs before its pool picks a socket', async () => {
    const { client, retries } = clientWithRetries({ fetch: (input, init) => fetch(input, init) });
    expect(await burst(client, 'f')).toEqual([]);
    expect(retries.every((event) => event.reason === 'nonce too small')).toBe(true);
  }, 120_000);

  it('places orders that carry a client_order_id without a nonce when asked: none is refused for one', async () => {
    // Through a given fetch the reads overtake the placements, so a placement signed with a
    // nonce would be refused; signed without one, it cannot be.
    const { client, retries } = clientWithRetries({
      ordersWithoutNonce: true,
      fetch: (input, init) => fetch(input, init),
    });
    const resting = await client.orders.create(buy(`${run}-w-resting`));
    const settled = await Promise.allSettled(
      Array.from({ length: calls }, (_, n) =>
        n % 2 ? client.orders.create(buy(`${run}-w-${n}`)) : client.orders.get({ id: resting.id }),
      ),
    );
    expect(settled.filter((result) => result.status === 'rejected')).toEqual([]);
    const ids = settled.map((result) => (result.status === 'fulfilled' ? result.value.id : 0));
    expect(new Set(ids).size).toBe(calls / 2 + 1);
    expect(retries.filter((event) => event.method === 'POST')).toEqual([]);
  }, 120_000);
});
