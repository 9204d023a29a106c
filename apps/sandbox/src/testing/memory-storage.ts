import type { Changes } from '../state/journal.js';
import type { SandboxState } from '../state/sandbox-state.js';
import type { SandboxStorage } from '../state/storage.js';

/**
 * A store that keeps nothing: the Sequencer decides and answers calls on `state` alone, so
 * the rules run with no database. Memory is the only copy, so reading the state back is
 * reading it as it is, and every intent is already in memory. `refuses` plays a store that
 * refuses some writes, as a constraint or a trigger would: a batch it names is not written.
 */
export function memoryStorage(
  state: SandboxState,
  refuses: (changes: Changes) => boolean = () => false,
): SandboxStorage {
  return {
    load: async () => state,
    loadIntents: async () => [],
    loadIntentIds: async () => [...state.partner.intents.keys()],
    write: async (changes) => {
      if (refuses(changes)) throw new Error('refused by the store');
    },
  };
}
