import { describe, expect, it } from 'vitest';
import { demoClient, startTestSandbox } from '../test-support.js';
import { addOrderHistory } from './order-history.js';
import { countingReads } from './rows-read.test-support.js';
import { demoUserId } from './seed.js';
import { ordersWhere, storedHistory } from './stored-history.js';

/** Where the pages below start to read ids first: a test's store holds a few thousand. */
const deepOffset = 1_000;

const historySize = 3_000;
const limit = 20;

describe('a list of orders read from the store', () => {
  it('reads the same pages past its deep offset as a page read whole would', async () => {
    const sandbox = await startTestSandbox();
    try {
      const { database } = sandbox;
      await database.transaction((tx) =>
        addOrderHistory(tx, {
          orders: historySize,
          userId: demoUserId,
          productId: 1,
          since: Date.now() - historySize,
        }),
      );
      const history = storedHistory(database, { deepOffset }).reads;
      // Ties of created_at too: the order of a page is its time, then its id.
      await database.transaction((tx) =>
        tx.query('UPDATE orders SET created_at = created_at - created_at % 5 WHERE user_id = $1', [
          demoUserId,
        ]),
      );
      const whole = await database.read((tx) =>
        tx.query<{ id: string }>(
          'SELECT id FROM orders WHERE user_id = $1 ORDER BY created_at DESC, id DESC',
          [demoUserId],
        ),
      );
      const ids = whole.rows.map((row) => Number(row.id));
      expect(ids.length).toBeGreaterThan(deepOffset + 2 * limit);
      for (const offset of [0, deepOffset - 1, deepOffset, deepOffset + 7, ids.length - 5]) {
        const { rows, total } = await history.orders(demoUserId, {}, offset, limit);
        expect({ offset, ids: rows.map((order) => order.id), total }).toEqual({
          offset,
          ids: ids.slice(offset, offset + limit),
          total: ids.length,
        });
      }
      const cancelled = await history.orders(
        demoUserId,
        { statuses: ['cancelled'] },
        deepOffset,
        limit,
      );
      expect(cancelled.rows.map((order) => order.status)).toEqual(Array(limit).fill('cancelled'));
    } finally {
      await sandbox.close();
    }
  });

  it('counts its pages from the counts the store keeps, however the orders were written', async () => {
    const sandbox = await startTestSandbox();
    try {
      const { database } = sandbox;
      const call = demoClient(sandbox);
      const placed: number[] = [];
      for (const price of ['9000000', '9000001', '9000002']) {
        const answer = await call('POST', '/orders', {
          body: { order_type: 'limit', product_id: 1, side: 'buy', quantity: '0.01', price },
        });
        placed.push(Number((answer.body as { id: number }).id));
      }
      await call('PUT', `/orders/${placed[0]}/cancel`, {});
      // Another writer: orders added in bulk, some then filled or removed behind the sandbox.
      await database.transaction(async (tx) => {
        await addOrderHistory(tx, {
          orders: historySize,
          userId: demoUserId,
          productId: 1,
          since: Date.now() - historySize,
        });
        await tx.query(
          "UPDATE orders SET status = 'filled' WHERE user_id = $1 AND id % 7 = 0 AND status = 'cancelled'",
          [demoUserId],
        );
        await tx.query('DELETE FROM orders WHERE user_id = $1 AND id % 11 = 0 AND status = $2', [
          demoUserId,
          'filled',
        ]);
        await tx.query('ANALYZE orders');
      });
      const history = storedHistory(database).reads;
      const orders = countingReads(database, ['orders']);
      const { rows } = await orders.history.orders(demoUserId, {}, 0, limit);
      expect(rows).toHaveLength(limit);
      expect(orders.rowsRead()).toBeLessThan(10 * limit);
      const filters = [
        {},
        { statuses: ['live'] },
        { statuses: ['live', 'partially_filled'] },
        { statuses: ['cancelled'] },
        { statuses: ['filled', 'cancelled'] },
        { productId: 1, statuses: ['cancelled'] },
        { productId: 2 },
        { tradingType: 'spot', fundingCurrency: 'JPY' },
      ] as const;
      // One status is a plain equality, which the index by user and status pages in order.
      expect(ordersWhere(demoUserId, { statuses: ['cancelled'] }).where).toContain('status = $2');
      for (const filter of filters) {
        const { where, params } = ordersWhere(demoUserId, filter);
        const [counted] = (
          await database.read((tx) =>
            tx.query<{ count: string }>(`SELECT count(*) FROM orders WHERE ${where}`, params),
          )
        ).rows;
        const { total } = await history.orders(demoUserId, filter, 0, limit);
        expect({ filter, total }).toEqual({ filter, total: Number(counted?.count) });
      }
    } finally {
      await sandbox.close();
    }
  });
});
