/**
 * Nonce order under concurrency: one exchange client and one token start a thousand calls at
 * once against the sandbox in its own process. Over several sockets, calls can reach the
 * server in another order than their nonces; the client resends the ones refused for it.
 * Counted: resends and failures per 1,000 calls.
 */
import type { RetryEvent } from '@exchange-kit/core';
import { createExchangeClient, type ExchangeClientOptions } from '@exchange-kit/exchange-client';
import { startSandboxProcess } from '@exchange-kit/sandbox/testing';

const calls = 1_000;
const rounds = 3;

interface Row {
  name: string;
  options: Partial<ExchangeClientOptions>;
}

const rows: Row[] = [
  { name: 'Node transport (signed once the socket is connected), resends on', options: {} },
  {
    name: 'through a given fetch (signed before its pool picks a socket), resends on',
    options: { fetch: (input, init) => fetch(input, init) },
  },
  { name: 'Node transport, resends off (`retry: false`)', options: { retry: false } },
];

// Far below the book, so every order rests; small, so thousands fit the demo balance.
const buy = (clientOrderId?: string) => ({
  order_type: 'limit' as const,
  product_id: 1,
  side: 'buy' as const,
  quantity: '0.001',
  price: '1000',
  ...(clientOrderId === undefined ? {} : { client_order_id: clientOrderId }),
});

export async function nonceBench(): Promise<string> {
  const sandbox = await startSandboxProcess(60_000);
  const lines: string[] = [];
  try {
    for (const [rowIndex, row] of rows.entries()) {
      const resends: number[] = [];
      const failures: number[] = [];
      const times: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const retries: RetryEvent[] = [];
        const client = createExchangeClient({
          baseUrl: sandbox.exchangeUrl,
          tokenId: sandbox.tokenId,
          tokenSecret: sandbox.tokenSecret,
          hooks: { onRetry: (event) => retries.push(event) },
          // With at most 8 resends and 2 retries per call, this bounds every call in time.
          timeoutMs: 10_000,
          ...row.options,
        });
        const tag = `nb-${rowIndex}-${round}`;
        const resting = await client.orders.create(buy(`${tag}-resting`));
        const started = performance.now();
        const settled = await Promise.allSettled(
          Array.from({ length: calls }, (_, n): Promise<unknown> => {
            switch (n % 5) {
              case 0:
                return client.orders.create(buy());
              case 1:
                return client.orders.create(buy(`${tag}-${n}`));
              case 2:
                return client.orders.get({ id: resting.id });
              case 3:
                return client.orders.edit({ id: resting.id }, { price: 1000 + (n % 7) });
              default:
                return client.orders.list({ product_id: 1, limit: 5 });
            }
          }),
        );
        times.push(performance.now() - started);
        resends.push(retries.filter((event) => event.reason === 'nonce too small').length);
        failures.push(settled.filter((result) => result.status === 'rejected').length);
      }
      const perThousand = (values: number[]) => values.map((v) => Math.round((v * 1000) / calls));
      lines.push(
        `| ${row.name} | ${perThousand(resends).join(', ')} | ${perThousand(failures).join(', ')} | ${times.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s |`,
      );
    }
  } finally {
    await sandbox.stop();
  }
  return [
    '## Nonce order',
    '',
    `One exchange client, one token, ${calls} calls started at once (placements with and without a client_order_id, gets, edits, listings) against the sandbox in its own process (in memory). ${rounds} rounds per row, each figure per round.`,
    '',
    '| client | nonce resends per 1,000 calls | failures per 1,000 calls | time per round |',
    '| --- | --- | --- | --- |',
    ...lines,
    '',
    'Target: 0 failures with resends on.',
  ].join('\n');
}
