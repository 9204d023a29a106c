import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../testing/memory-storage.js';
import type { Changes } from './journal.js';
import { SandboxState } from './sandbox-state.js';
import { CallNotStored, Sequencer } from './sequencer.js';

/** A store whose writes wait until the test lets them through, or refuses them. */
function heldStorage() {
  const state = new SandboxState();
  const writes: { resolve(): void; reject(error: Error): void }[] = [];
  const storage = {
    ...memoryStorage(state),
    write: (_changes: Changes) =>
      new Promise<void>((resolve, reject) => writes.push({ resolve, reject })),
  };
  return { storage, writes };
}

const nextWrite = async (writes: unknown[]) => {
  while (writes.length === 0) await new Promise((resolve) => setImmediate(resolve));
};

describe('what a call publishes', () => {
  it('is rendered as the call leaves the state, and sent once its changes are stored, in order', async () => {
    const { storage, writes } = heldStorage();
    const sequencer = await Sequencer.open(storage);
    const log: string[] = [];
    sequencer.publisher = {
      decided(journal) {
        const nonce = [...journal.rowKeys(), String(journal.state.nonces.size)].join();
        log.push(`decided ${nonce}`);
        return () => log.push(`sent ${nonce}`);
      },
      sealed: () => log.push('sealed'),
    };
    const calls = [1n, 2n].map((value) =>
      sequencer.run((journal) => {
        journal.state.nonces.set(`token:${value}`, value);
        journal.nonce(`token:${value}`, value);
      }),
    );
    await nextWrite(writes);
    // Decided in one turn, the two calls leave together: sealed once, after both.
    expect(log).toEqual(['decided 1', 'decided 2', 'sealed']);
    writes.shift()?.resolve();
    await Promise.all(calls);
    expect(log).toEqual(['decided 1', 'decided 2', 'sealed', 'sent 1', 'sent 2']);
  });

  it('is never sent for a call whose changes the store refuses', async () => {
    const { storage, writes } = heldStorage();
    const sequencer = await Sequencer.open(storage);
    const sent: string[] = [];
    sequencer.publisher = { decided: () => () => sent.push('sent') };
    const call = sequencer.run((journal) => journal.openAccount(1, 'BTC', 'sandbox-btc-1'));
    let settled = false;
    const outcome = call.then(
      () => 'stored',
      (error) => (error instanceof CallNotStored ? 'not stored' : String(error)),
    );
    void outcome.then(() => {
      settled = true;
    });
    // The batch, the call stored alone, then decided again and stored alone: all refused.
    while (!settled) {
      writes.shift()?.reject(new Error('refused'));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await outcome).toBe('not stored');
    expect(sent).toEqual([]);
  });

  it('failing in a subscriber fails no call', async () => {
    const { storage, writes } = heldStorage();
    const sequencer = await Sequencer.open(storage);
    sequencer.publisher = {
      decided: () => () => {
        throw new Error('a subscriber failed');
      },
      sealed: () => {
        throw new Error('a subscriber failed');
      },
    };
    const call = sequencer.run((journal) => {
      journal.nonce('token:1', 1n);
      return 'answered';
    });
    await nextWrite(writes);
    writes.shift()?.resolve();
    expect(await call).toBe('answered');
  });
});
