/**
 * One sandbox per PostgreSQL database: the exchange is decided in the memory of one process,
 * so a second process writing to the same database would hand out the ids the first uses.
 */
import { zCreateOrderResponse } from '@exchange-kit/contract/exchange/schemas';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../postgres.test-support.js';
import { startSandbox } from '../server.js';
import { demoClient, valid } from '../test-support.js';

describe('a PostgreSQL database', () => {
  it('serves one sandbox at a time, and the next one finds what the last one stored', async () => {
    const databaseUrl = await freshDatabase(process.env.SANDBOX_TEST_DATABASE_URL ?? '');
    const first = await startSandbox({ port: 0, databaseUrl });
    const placed = valid(
      zCreateOrderResponse,
      await demoClient(first)('POST', '/orders', {
        body: { order_type: 'limit', product_id: 1, side: 'buy', quantity: '0.01', price: '1' },
      }),
    );
    const second = startSandbox({ port: 0, databaseUrl });
    await expect(second).rejects.toThrow(
      'Another sandbox is using this PostgreSQL database: give each sandbox a database of its own.',
    );
    await first.close();
    const next = await startSandbox({ port: 0, databaseUrl });
    try {
      const read = await demoClient(next)('GET', `/orders/${placed.id}`);
      expect(read.body).toMatchObject({ id: placed.id, status: 'live' });
    } finally {
      await next.close();
    }
  });
});
