import type { StoredHistory } from './history.js';
import type { Changes } from './journal.js';
import type { Intent } from './partner-state.js';
import type { SandboxState } from './sandbox-state.js';

/**
 * What the Sequencer needs of the store the sandbox is kept in: the state to start from,
 * and a place to write each batch of changes. `store/` provides it.
 */
export interface SandboxStorage {
  /** The sandbox as the store holds it now, but for its intents (`loadIntents`). */
  load(): Promise<SandboxState>;
  /** The intents among `ids` (lower-case UUIDs) that the store holds. */
  loadIntents(ids: readonly string[]): Promise<Intent[]>;
  /** The id of every intent the store holds. */
  loadIntentIds(): Promise<string[]>;
  /** Writes the rows of one batch in one transaction: all of them, or none. */
  write(changes: Changes): Promise<void>;
  /** Reclaims the room of rows that writes replaced, on a store that does not do it alone. */
  reclaim?(): Promise<void>;
  /** Keeps the planner's statistics, on a store that does not do it alone. */
  analyze?(): Promise<void>;
  /**
   * Where history is read when the store keeps it: memory then forgets each order once it is
   * stored closed. Without it, memory holds all history and answers its reads.
   */
  history?: StoredHistory;
}

/**
 * The stored rows a call may read that memory holds only once read: the sequencer reads them
 * in before the call is decided. Ids are lower-case UUIDs.
 */
export interface StoredReads {
  intents?: readonly string[];
  /**
   * Orders named by their owner's client order id (a closed one may be in the store alone).
   * Not read ahead: a new id is the common case, and the store's unique key refuses a taken
   * one, so they are read in only before a call the store refused is decided again.
   */
  clientOrders?: { userId: number; clientOrderIds: readonly string[] };
}
