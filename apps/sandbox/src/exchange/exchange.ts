import type { Database } from '../store/database.js';
import { Changes, Journal } from './journal.js';
import { preparedWrites } from './rows.js';
import { ExchangeState } from './state.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The exchange's calls, decided one at a time on the state in memory and stored through
 * the database's group commit: a call is answered once its changes are committed.
 */
export class Exchange {
  #state: ExchangeState;
  #ready: Promise<void> = Promise.resolve();
  #version = 0;
  /** The batch calls decided now are stored with; it is written once the one before is. */
  #batch: { changes: Changes; stored: Promise<void> } | undefined;
  #lastBatch: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly db: Database,
    state: ExchangeState,
  ) {
    this.#state = state;
  }

  static async open(db: Database): Promise<Exchange> {
    return new Exchange(db, await db.read((tx) => ExchangeState.load(tx)));
  }

  get state(): ExchangeState {
    return this.#state;
  }

  /** Grows with every change public reads can show: what a kept answer is checked against. */
  get version(): number {
    return this.#version;
  }

  /**
   * Runs `decide`, which must not wait on anything, on the current state, then stores what it
   * changed. A throw undoes its changes but its nonce, which stays spent.
   */
  async run<T>(decide: (journal: Journal) => T): Promise<T> {
    await this.#ready;
    const journal = new Journal(this.#state);
    let result: T;
    try {
      result = decide(journal);
    } catch (error) {
      journal.undo();
      await this.#store(journal);
      throw error;
    }
    await this.#store(journal);
    return result;
  }

  /** Resolves once every change made so far is committed (or has failed). */
  settled(): Promise<void> {
    return this.#lastBatch.then(() => undefined);
  }

  /**
   * Reads the state again from the store, for rows written to it directly (fixtures, seeds).
   * Calls wait meanwhile, and everything already decided is committed first.
   */
  reload(): Promise<void> {
    const reloaded = this.#ready.then(async () => {
      await this.settled();
      this.#state = await this.db.read((tx) => ExchangeState.load(tx));
      this.#version++;
    });
    this.#ready = reloaded.catch(() => undefined);
    return reloaded;
  }

  /**
   * Group commit: calls decided while a batch is being written wait together in the next
   * one, so a burst of calls costs one transaction of a few statements.
   */
  #store(journal: Journal): Promise<void> {
    if (journal.empty) return Promise.resolve();
    if (journal.changedMarket) this.#version++;
    if (!this.#batch) {
      const changes = new Changes();
      // Written a turn of the event loop later, so every call whose request is already in
      // hand joins this batch.
      const stored = this.#lastBatch.then(nextTurn).then(async () => {
        if (this.#batch?.changes === changes) this.#batch = undefined;
        try {
          await this.db.apply(changes.sql(this.#state.next), preparedWrites);
        } catch (error) {
          // Memory now holds what the store refused: read the store's truth back.
          void this.reload().catch(() => undefined);
          throw error;
        }
      });
      this.#batch = { changes, stored };
      this.#lastBatch = stored.catch(() => undefined);
    }
    journal.mergeInto(this.#batch.changes);
    return this.#batch.stored;
  }
}
