import type { Database, Queryable } from '../store/database.js';
import { Changes, Journal } from './journal.js';
import { preparedWrites } from './rows.js';
import { ExchangeState } from './state.js';

// Rows rewritten between two passes of reclaiming the room of the rows they replaced: about
// a megabyte of orders, and tens of milliseconds of PGlite's time per pass.
const defaultRowsPerReclaim = 20_000;

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
  #rowsSinceReclaim = 0;

  private constructor(
    private readonly db: Database,
    state: ExchangeState,
    private readonly rowsPerReclaim: number,
  ) {
    this.#state = state;
  }

  static async open(
    db: Database,
    { rowsPerReclaim = defaultRowsPerReclaim }: { rowsPerReclaim?: number } = {},
  ): Promise<Exchange> {
    return new Exchange(db, await db.read((tx) => ExchangeState.load(tx)), rowsPerReclaim);
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

  /** Reads the state again from the store, once everything already decided is committed. */
  reload(): Promise<void> {
    return this.#exclusively(async () => undefined);
  }

  /**
   * Runs `work` in a transaction of the store's own (fixtures, seeds), then reads the state
   * back. Ids are handed out in memory, so the store's sequences are first moved past them:
   * rows `work` adds never take one a call has used.
   */
  writeDirectly<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#exclusively(() =>
      this.db.transaction(async (tx) => {
        await tx.query(sequencesPast(this.#state.next));
        return work(tx);
      }),
    );
  }

  /** Runs `work` with no call decided meanwhile, then reads the state back from the store. */
  #exclusively<T>(work: () => Promise<T>): Promise<T> {
    const done = this.#ready.then(async () => {
      await this.settled();
      try {
        return await work();
      } finally {
        this.#state = await this.db.read((tx) => ExchangeState.load(tx));
        this.#version++;
      }
    });
    this.#ready = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
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
          await this.db.apply(changes.sql(), preparedWrites);
          this.#rowsSinceReclaim += changes.size;
          if (this.db.reclaim && this.#rowsSinceReclaim >= this.rowsPerReclaim) {
            this.#rowsSinceReclaim = 0;
            // Queued before the next batch, after this one's calls are answered; a failure
            // only leaves the room to the next pass.
            void this.db.reclaim().catch(() => undefined);
          }
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

/** Moves the store's sequences to the ids memory hands out next. */
function sequencesPast(next: ExchangeState['next']): string {
  return `SELECT setval('orders_id_seq', ${Math.max(next.order - 1, 1)}),
    setval('orders_sequence_seq', ${Math.max(next.orderSequence - 1, 1)}),
    setval('fills_id_seq', ${Math.max(next.fill - 1, 1)}),
    setval('accounts_id_seq', ${Math.max(next.account - 1, 1)})`;
}
