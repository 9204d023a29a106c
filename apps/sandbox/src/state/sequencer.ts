import { Changes, Journal } from './journal.js';
import type { Queryable } from './queryable.js';
import type { SandboxState } from './sandbox-state.js';
import type { SandboxStorage, StoredReads } from './storage.js';

// Rows rewritten between two passes of reclaiming the room of the rows they replaced: about
// a megabyte of orders, and tens of milliseconds of PGlite's time per pass.
const defaultRowsPerReclaim = 20_000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A call whose changes the store refused, or that was decided on such a call: none is kept. */
export class CallNotStored extends Error {
  constructor(reason: string, cause: unknown) {
    super(reason, { cause });
  }
}

interface Batch {
  changes: Changes;
  /** The calls stored with this batch, in the order they were decided. */
  journals: Journal[];
  stored: Promise<void>;
}

/**
 * The calls of a batch in groups that share no row: a group is stored, or refused, as a
 * whole, and no group's rows hold another group's changes.
 */
function groupsSharingNoRow(journals: Journal[]): Journal[][] {
  const parent = journals.map((_, index) => index);
  const root = (index: number): number => {
    let at = index;
    while (parent[at] !== at) at = parent[at] as number;
    parent[index] = at;
    return at;
  };
  const owner = new Map<string, number>();
  journals.forEach((journal, index) => {
    for (const key of journal.rowKeys()) {
      const other = owner.get(key);
      if (other === undefined) owner.set(key, index);
      else parent[root(index)] = root(other);
    }
  });
  const groups = new Map<number, Journal[]>();
  journals.forEach((journal, index) => {
    const group = groups.get(root(index)) ?? [];
    group.push(journal);
    groups.set(root(index), group);
  });
  return [...groups.values()];
}

/**
 * Every call of the sandbox, decided one at a time on the state in memory and stored through
 * the database's group commit: a call is answered once its changes are committed.
 */
export class Sequencer {
  #state: SandboxState;
  #ready: Promise<void> = Promise.resolve();
  #version = 0;
  /** The batch calls decided now are stored with; it is written once the one before is. */
  #batch: Batch | undefined;
  #lastBatch: Promise<unknown> = Promise.resolve();
  #rowsSinceReclaim = 0;
  #intentIdsRead: Promise<void>;
  /** Read-backs of the whole state queued and not over yet (see #exclusively). */
  #reloadsQueued = 0;
  /** The last call waiting to be decided that holds back later calls naming each key. */
  readonly #held = new Map<string, Promise<void>>();
  /** Every call still waiting for a read, or behind one: a read-back waits for them all. */
  readonly #holding = new Set<Promise<void>>();

  private constructor(
    private readonly storage: SandboxStorage,
    state: SandboxState,
    private readonly rowsPerReclaim: number,
  ) {
    this.#state = state;
    this.#intentIdsRead = this.#readIntentIds(state);
  }

  static async open(
    storage: SandboxStorage,
    { rowsPerReclaim = defaultRowsPerReclaim }: { rowsPerReclaim?: number } = {},
  ): Promise<Sequencer> {
    return new Sequencer(storage, await storage.load(), rowsPerReclaim);
  }

  /**
   * Reads the id of every stored intent after the start rather than during it: on PGlite
   * hundreds of thousands of ids take seconds. Until they are in, every id named is read.
   */
  async #readIntentIds(state: SandboxState): Promise<void> {
    try {
      state.partner.addStoredIntentIds(await this.storage.loadIntentIds());
    } catch {
      // Named ids are read from the store until the next read-back of the state.
    }
  }

  /** Resolves once the ids of the stored intents are known (or could not be read). */
  intentIdsRead(): Promise<void> {
    return this.#intentIdsRead;
  }

  get state(): SandboxState {
    return this.#state;
  }

  /** Grows with every change public reads can show: what a kept answer is checked against. */
  get version(): number {
    return this.#version;
  }

  /**
   * Runs `decide`, which must not wait on anything, on the current state, then stores what it
   * changed. A throw undoes its changes but its nonce, which stays spent. The stored rows
   * `reads` names that memory does not hold yet are read in first; meanwhile only the later
   * calls that name the same rows or the same `nonceScope` are held back, so those are still
   * decided in the order they came and every other call goes on. An id no row has is not
   * read: the call is decided at once and finds nothing. A failed read fails this call only.
   */
  async run<T>(
    decide: (journal: Journal) => T,
    reads?: StoredReads,
    nonceScope?: string,
  ): Promise<T> {
    const named = reads?.intents ?? [];
    const { partner } = this.#state;
    // Memory read back from the store holds no intent: with a read-back queued, what memory
    // holds now says nothing of what it will hold when this call is decided.
    const unread =
      this.#reloadsQueued > 0
        ? named
        : named.filter((id) => partner.mayHoldIntent(id) && !partner.intents.has(id));
    const keys = [...named.map((id) => `intent ${id}`)];
    if (nonceScope !== undefined) keys.push(`nonce ${nonceScope}`);
    const ahead = keys.flatMap((key) => this.#held.get(key) ?? []);
    if (unread.length === 0 && ahead.length === 0) {
      await this.#ready;
      return this.#decide(decide);
    }
    const barrier = this.#ready;
    let release = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (const key of keys) this.#held.set(key, mine);
    this.#holding.add(mine);
    try {
      await Promise.all([barrier, ...ahead]);
      const state = this.#state.partner;
      // A row memory holds by now was made or changed meanwhile: it is newer than the store's.
      const missing = unread.filter((id) => !state.intents.has(id));
      if (missing.length > 0) {
        for (const intent of await this.storage.loadIntents(missing)) {
          if (!this.#state.partner.intents.has(intent.id)) this.#state.partner.addIntent(intent);
        }
      }
      return this.#decide(decide);
    } finally {
      for (const key of keys) if (this.#held.get(key) === mine) this.#held.delete(key);
      this.#holding.delete(mine);
      release();
    }
  }

  /** Decides at once, in the turn it is called; answers once the changes are stored. */
  async #decide<T>(decide: (journal: Journal) => T): Promise<T> {
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
    if (journal.refusal) throw journal.refusal;
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
    return this.#exclusively(() => this.storage.writeDirectly(this.#state.exchange.next, work));
  }

  /** Runs `work` with no call decided meanwhile, then reads the state back from the store. */
  #exclusively<T>(work: () => Promise<T>): Promise<T> {
    this.#reloadsQueued++;
    const done = Promise.all([this.#ready, ...this.#holding]).then(async () => {
      await this.settled();
      try {
        return await work();
      } finally {
        this.#state = await this.storage.load();
        this.#intentIdsRead = this.#readIntentIds(this.#state);
        this.#version++;
      }
    });
    const over = () => {
      this.#reloadsQueued--;
    };
    this.#ready = done.then(over, over);
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
      const journals: Journal[] = [];
      // Written a turn of the event loop later, so every call whose request is already in
      // hand joins this batch.
      const stored = this.#lastBatch.then(nextTurn).then(async () => {
        if (this.#batch?.changes === changes) this.#batch = undefined;
        try {
          await this.storage.write(changes);
          this.#rowsSinceReclaim += changes.size;
          if (this.storage.reclaim && this.#rowsSinceReclaim >= this.rowsPerReclaim) {
            this.#rowsSinceReclaim = 0;
            // Queued before the next batch, after this one's calls are answered; a failure
            // only leaves the room to the next pass.
            void this.storage.reclaim().catch(() => undefined);
          }
        } catch (error) {
          try {
            await this.#storeApart(journals, changes.nonces);
          } catch {
            // Memory now holds what the store refused: read the store's truth back.
            void this.reload().catch(() => undefined);
            throw error;
          }
        }
      });
      this.#batch = { changes, journals, stored };
      this.#lastBatch = stored.catch(() => undefined);
    }
    journal.mergeInto(this.#batch.changes);
    this.#batch.journals.push(journal);
    return this.#batch.stored;
  }

  /**
   * A batch the store refused, stored again one group of calls at a time: one call's bad
   * row fails only the calls that changed the same rows, and every other call is kept.
   */
  async #storeApart(journals: Journal[], nonces: Changes['nonces']): Promise<void> {
    const refused = new Set<Journal>();
    for (const group of groupsSharingNoRow(journals)) {
      const part = new Changes();
      for (const journal of group) journal.mergeInto(part);
      part.nonces.clear();
      // A call refused before the store changes only its nonce, written below.
      if (part.size === 0) continue;
      try {
        await this.storage.write(part);
      } catch (cause) {
        for (const journal of group) {
          journal.refusal = new CallNotStored('The store refused the changes of this call', cause);
          refused.add(journal);
        }
      }
    }
    // A refused call's nonce stays spent, as it does for any refused call.
    const spent = new Changes();
    for (const [scope, value] of nonces) spent.nonces.set(scope, value);
    if (spent.size > 0) await this.storage.write(spent);
    if (refused.size > 0) this.#withdraw(journals.filter((journal) => refused.has(journal)));
  }

  /**
   * Takes back from memory the refused calls and the calls decided since on rows they
   * changed (those are not stored yet, and are refused too), latest first so that each undo
   * finds its rows as its call left them.
   */
  #withdraw(refused: Journal[]): void {
    const rows = new Set(refused.flatMap((journal) => journal.rowKeys()));
    const withdrawn = [...refused];
    const next = this.#batch;
    if (next) {
      const kept: Journal[] = [];
      for (const journal of next.journals) {
        const keys = journal.rowKeys();
        if (!keys.some((key) => rows.has(key))) {
          kept.push(journal);
          continue;
        }
        for (const key of keys) rows.add(key);
        journal.refusal = new CallNotStored(
          'This call was decided on a call whose changes the store refused',
          refused[0]?.refusal,
        );
        withdrawn.push(journal);
      }
      next.changes.clearRows();
      for (const journal of kept) journal.mergeInto(next.changes);
    }
    for (const journal of withdrawn.reverse()) journal.undo();
    this.#version++;
    // Undone, memory holds what the store does but for the ids the refused calls took: read
    // the store back once the calls decided meanwhile are stored.
    void this.reload().catch(() => undefined);
  }
}
