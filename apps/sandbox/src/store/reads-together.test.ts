import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoUserId } from '../demo-market.js';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';
import { addLedgerHistory } from './ledger-history.js';
import { storedHistory } from './stored-history.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

const filter = { currency: 'JPY' };

describe('reads together', () => {
  it('see the store of one moment: an entry stored between two of them is in neither', async () => {
    const { reads } = storedHistory(sandbox.database);
    let write: Promise<void> | undefined;
    const seen = await reads.together(async (now) => {
      const first = await now.countEntries(demoUserId, filter);
      // Another writer's entry, stored while the reads run: PostgreSQL commits it beside
      // them, PGlite queues it behind them. Either way the second read is of the moment before.
      write = sandbox.database.transaction((tx) =>
        addLedgerHistory(tx, { entries: 1, userId: demoUserId, currency: 'JPY', since: 1 }),
      );
      await Promise.race([write, delay(300)]);
      const entries = await now.entries(demoUserId, filter, 0, 1000);
      const second = await now.countEntries(demoUserId, filter);
      return { first, listed: entries.length, second };
    });
    await write;
    expect(seen.second).toBe(seen.first);
    expect(seen.listed).toBe(seen.first);
    // Read apart, after it, the entry is there.
    expect(await reads.countEntries(demoUserId, filter)).toBe(seen.first + 1);
  });
});
