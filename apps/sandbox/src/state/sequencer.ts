import type { Sequences } from './exchange-state.js';
import type { HistoryReads } from './history.js';
import { Changes, Journal } from './journal.js';
import { getOrCreate } from './lists.js';
import { memoryHistory } from './memory-history.js';
import { isOpen } from './records.js';
import { recordKinds, SandboxState } from './sandbox-state.js';
import type { SandboxStorage, StoredReads } from './storage.js';

// Rows rewritten between two passes of reclaiming the room of the rows they replaced: about
// a megabyte of orders, and tens of milliseconds of PGlite's time per pass.
const defaultRowsPerReclaim = 20_000;
// Rows written between two looks at which tables need their statistics again: the look is one
// query of the store's own counts, and analyses only the tables it picks (see
// SandboxStorage.analyze).
const defaultRowsPerAnalysis = 5_000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A call whose own changes the store refused: none is kept. */
export class CallNotStored extends Error {
  constructor(reason: string, cause: unknown) {
    super(reason, { cause });
  }
}

/**
 * A call held until its changes are stored: decided again, on the state without them, when
 * the store refuses a call it was decided after.
 */
interface Call {
  readonly decide: (journal: Journal) => unknown;
  journal: Journal;
  outcome: { value: unknown } | { error: unknown };
  /** What the publisher made of the call's changes, to be sent once they are stored. */
  publish?: (() => void) | undefined;
  /** The stored orders to read in before the call is decided again (see StoredReads). */
  clientOrders?: StoredReads['clientOrders'];
}

/**
 * Told of each call's changes as it is decided, while the state is as the call left it; what
 * `decided` returns is run once those changes are stored, in the order the calls were decided.
 * A call the store refuses publishes nothing.
 */
export interface Publisher {
  decided(journal: Journal): (() => void) | undefined;
  /**
   * Told when the calls decided since the last seal leave to be stored together, while the
   * state is as the last of them left it: what is worth rendering once per batch, not once per
   * call, is rendered here.
   */
  sealed?(): void;
}

function decideCall(
  decide: (journal: Journal) => unknown,
  journal: Journal,
  publisher: Publisher | undefined,
): Call {
  try {
    const value = decide(journal);
    return { decide, journal, outcome: { value }, publish: publisher?.decided(journal) };
  } catch (error) {
    journal.undo();
    return { decide, journal, outcome: { error } };
  }
}

/** Sends what the calls publish; the calls are stored whatever their subscribers do. */
const publish = (calls: readonly Call[]) => {
  for (const call of calls) {
    try {
      call.publish?.();
    } catch {
      // A subscriber's failure is the subscriber's: the publisher drops it, never the call.
    }
  }
};

interface SequencerOptions {
  rowsPerReclaim?: number;
  rowsPerAnalysis?: number;
}

interface Batch {
  changes: Changes;
  /** The calls stored with this batch, in the order they were decided. */
  calls: Call[];
  stored: Promise<void>;
}

/**
 * The calls of a batch in groups that share no row: a group is stored, or refused, as a
 * whole, and no group's rows hold another group's changes.
 */
function groupsSharingNoRow(calls: Call[]): Call[][] {
  const parent = calls.map((_, index) => index);
  const root = (index: number): number => {
    let at = index;
    while (parent[at] !== at) at = parent[at] as number;
    parent[index] = at;
    return at;
  };
  const owner = new Map<string, number>();
  calls.forEach((call, index) => {
    for (const key of call.journal.rowKeys()) {
      const other = owner.get(key);
      if (other === undefined) owner.set(key, index);
      else parent[root(index)] = root(other);
    }
  });
  const groups = new Map<number, Call[]>();
  calls.forEach((call, index) => {
    getOrCreate(groups, root(index), (): Call[] => []).push(call);
  });
  return [...groups.values()];
}

/**
 * Every call of the sandbox, decided one at a time on the state in memory and stored through
 * the database's group commit: a call is answered once its changes are committed.
 */
export class Sequencer {
  /** Empty until the store's state is read in (see `opening`). */
  #state = new SandboxState();
  #ready: Promise<void> = Promise.resolve();
  #version = 0;
  /** The batch calls decided now are stored with; it is written once the one before is. */
  #batch: Batch | undefined;
  #lastBatch: Promise<unknown> = Promise.resolve();
  #rowsSinceReclaim = 0;
  #rowsSinceAnalysis = 0;
  #intentIdsRead: Promise<void> = Promise.resolve();
  /** Where history is read: the store, or memory when the store keeps nothing. */
  readonly #history: HistoryReads;
  /** Told of every call's changes; see Publisher. */
  publisher: Publisher | undefined;
  /** Read-backs of the whole state queued and not over yet (see #exclusively). */
  #reloadsQueued = 0;
  /** Set while calls of a refused batch are decided again: no other call is decided meanwhile. */
  #decidingAgain: Promise<void> | undefined;
  /** The last call waiting to be decided that holds back later calls naming each key. */
  readonly #held = new Map<string, Promise<void>>();
  /** Every call still waiting for a read, or behind one: a read-back waits for them all. */
  readonly #holding = new Set<Promise<void>>();

  private constructor(
    private readonly storage: SandboxStorage,
    private readonly rowsPerReclaim: number,
    private readonly rowsPerAnalysis: number,
  ) {
    this.#history = storage.history?.reads ?? memoryHistory(() => this.#state.exchange);
  }

  static async open(storage: SandboxStorage, options: SequencerOptions = {}): Promise<Sequencer> {
    const sequencer = Sequencer.opening(storage, options);
    await sequencer.#ready;
    return sequencer;
  }

  /**
   * The sequencer of `storage` at once, its state read once `after` (the store's migration)
   * is over: calls wait for it (and fail as the read does, or `after`), while whatever only
   * holds on to the sequencer, as the server's routes do, is built meanwhile.
   */
  static opening(
    storage: SandboxStorage,
    {
      rowsPerReclaim = defaultRowsPerReclaim,
      rowsPerAnalysis = defaultRowsPerAnalysis,
      after = Promise.resolve(),
    }: SequencerOptions & { after?: Promise<unknown> } = {},
  ): Sequencer {
    const sequencer = new Sequencer(storage, rowsPerReclaim, rowsPerAnalysis);
    sequencer.#ready = after
      .then(() => storage.load())
      .then((state) => {
        sequencer.#state = state;
        sequencer.#intentIdsRead = sequencer.#readIntentIds(state);
      });
    return sequencer;
  }

  /**
   * Has the store analyse the tables that need it (see SandboxStorage.analyze), after what is
   * decided by now. The sandbox asks once it listens, for a store written in bulk or before.
   */
  analyze(): Promise<void> {
    return this.settled().then(() => this.storage.analyze?.());
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
   * changed. A throw undoes its changes but its nonce, which stays spent. The stored intents
   * `reads` names that memory does not hold yet are read in first (client orders are read
   * only when the store refuses the call, see StoredReads); meanwhile only the later
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
    const clientOrders = this.storage.history ? reads?.clientOrders : undefined;
    const keys = [...named.map((id) => `intent ${id}`)];
    if (nonceScope !== undefined) keys.push(`nonce ${nonceScope}`);
    const ahead = keys.flatMap((key) => this.#held.get(key) ?? []);
    if (unread.length === 0 && ahead.length === 0) {
      await this.#ready;
      return this.#decide(decide, clientOrders);
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
      return this.#decide(decide, clientOrders);
    } finally {
      for (const key of keys) if (this.#held.get(key) === mine) this.#held.delete(key);
      this.#holding.delete(mine);
      release();
    }
  }

  #holdsClientOrder(named: StoredReads['clientOrders'], clientOrderId: string): boolean {
    return (
      named !== undefined &&
      this.#state.exchange.orderByClientId(named.userId, clientOrderId) !== undefined
    );
  }

  /** Reads in the stored orders named by client id that memory let go of once closed. */
  async #readClientOrders(named: StoredReads['clientOrders'], ids: readonly string[]) {
    const history = this.storage.history;
    const missing = ids.filter((id) => !this.#holdsClientOrder(named, id));
    if (!history || !named || missing.length === 0) return;
    const exchange = this.#state.exchange;
    const stored = await history.ordersByClientId(named.userId, missing);
    exchange.addStoredOrders(
      stored.filter(
        (order) =>
          !exchange.orders.has(order.id) &&
          !this.#holdsClientOrder(named, order.clientOrderId ?? ''),
      ),
    );
  }

  /**
   * Runs `read` on history once every call decided so far is stored, so it sees them all: how
   * a read of what only grows is answered, outside the calls decided one at a time.
   */
  async read<T>(read: (history: HistoryReads, state: SandboxState) => Promise<T>): Promise<T> {
    await this.#ready;
    await this.settled();
    return read(this.#history, this.#state);
  }

  /**
   * Lets memory go of the history a batch stored (the orders, positions, loan bids and
   * withdrawals it closed, its fills, ledger entries and deposits), when the store keeps history.
   * A row a call of the next batch changed is kept: memory's row is that call's, not the one
   * stored, and were the store to refuse the call, its undo would bring back an open row that
   * memory no longer held.
   */
  #forgetClosed(changes: Changes): void {
    if (!this.storage.history) return;
    const { exchange } = this.#state;
    const next = this.#batch?.changes;
    for (const order of changes.orders.values()) {
      if (!isOpen(order) && !next?.orders.has(order.id)) exchange.forgetOrder(order);
    }
    for (const fill of changes.fills) exchange.forgetFill(fill);
    for (const position of changes.positions.values()) {
      if (!next?.positions.has(position.id)) exchange.forgetPosition(position);
    }
    for (const [key, { kind, row }] of changes.records) {
      if (next?.records.has(key)) continue;
      const forget = recordKinds[kind].forget as
        | ((state: SandboxState, row: object) => void)
        | undefined;
      forget?.(this.#state, row);
    }
  }

  /**
   * Decides at once, in the turn it is called (or once a refused batch is decided again);
   * answers once the changes are stored, with what the call was last decided to answer.
   */
  async #decide<T>(
    decide: (journal: Journal) => T,
    clientOrders?: StoredReads['clientOrders'],
  ): Promise<T> {
    while (this.#decidingAgain) await this.#decidingAgain;
    const call = decideCall(decide, new Journal(this.#state), this.publisher);
    call.clientOrders = clientOrders;
    await this.#store(call);
    if (call.journal.refusal) throw call.journal.refusal;
    if ('error' in call.outcome) throw call.outcome.error;
    return call.outcome.value as T;
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
   * Runs `work` with no call decided or stored meanwhile, then reads the state back from the
   * store: how rows are written straight into it (fixtures, tools). `work` is handed the ids
   * memory hands out next, which rows it adds must not take.
   */
  aside<T>(work: (next: Readonly<Sequences>) => Promise<T>): Promise<T> {
    return this.#exclusively(() => work({ ...this.#state.exchange.next }));
  }

  /** Runs `work` with no call decided meanwhile, then reads the state back from the store. */
  #exclusively<T>(work: () => Promise<T>): Promise<T> {
    this.#reloadsQueued++;
    const done = Promise.all([this.#ready, ...this.#holding]).then(async () => {
      await this.settled();
      try {
        return await work();
      } finally {
        const { oneUseTokens } = this.#state;
        this.#state = await this.storage.load();
        // The store keeps only the last iat per token; what this process saw stays seen.
        this.#state.oneUseTokens = oneUseTokens;
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
  #store(call: Call): Promise<void> {
    const { journal } = call;
    if (journal.empty) return Promise.resolve();
    if (journal.changedMarket) this.#version++;
    if (!this.#batch) {
      const changes = new Changes();
      const calls: Call[] = [];
      // Written a turn of the event loop later, so every call whose request is already in
      // hand joins this batch.
      const stored = this.#lastBatch.then(nextTurn).then(async () => {
        if (this.#batch?.changes === changes) this.#batch = undefined;
        this.#seal();
        try {
          await this.storage.write(changes);
          publish(calls);
          this.#forgetClosed(changes);
          this.#rowsSinceReclaim += changes.rewrites;
          if (this.storage.reclaim && this.#rowsSinceReclaim >= this.rowsPerReclaim) {
            this.#rowsSinceReclaim = 0;
            // Queued before the next batch, after this one's calls are answered; a failure
            // only leaves the room to the next pass.
            void this.storage.reclaim().catch(() => undefined);
          }
          this.#rowsSinceAnalysis += changes.size;
          if (this.storage.analyze && this.#rowsSinceAnalysis >= this.rowsPerAnalysis) {
            this.#rowsSinceAnalysis = 0;
            void this.storage.analyze().catch(() => undefined);
          }
        } catch (error) {
          try {
            await this.#storeApart(calls, changes.nonces);
          } catch {
            // Memory now holds what the store refused: read the store's truth back.
            void this.reload().catch(() => undefined);
            throw error;
          }
        }
      });
      this.#batch = { changes, calls, stored };
      this.#lastBatch = stored.catch(() => undefined);
    }
    journal.mergeInto(this.#batch.changes);
    this.#batch.calls.push(call);
    return this.#batch.stored;
  }

  #seal(): void {
    try {
      this.publisher?.sealed?.();
    } catch {
      // A subscriber's failure is the subscriber's: the batch is stored whatever it does.
    }
  }

  /**
   * A batch the store refused, stored again one group of calls at a time: the groups that
   * changed no row of a refused one are kept as decided, and the calls of a refused group
   * are decided again one at a time (see #decideAgain), so only a call whose own rows the
   * store refuses fails.
   */
  async #storeApart(calls: Call[], nonces: Changes['nonces']): Promise<void> {
    const refused: Call[] = [];
    const stored = new Set<string>();
    for (const group of groupsSharingNoRow(calls)) {
      const part = new Changes();
      for (const call of group) call.journal.mergeInto(part);
      part.nonces.clear();
      // A call refused before the store changes only its nonce, written below.
      if (part.size === 0) continue;
      try {
        await this.storage.write(part);
        publish(group);
        for (const call of group) for (const key of call.journal.rowKeys()) stored.add(key);
      } catch {
        refused.push(...group);
      }
    }
    if (refused.length > 0) {
      const ofRefused = new Set(refused);
      await this.#decideAgain(
        calls.filter((call) => ofRefused.has(call)),
        stored,
      );
    }
    // A refused call's nonce stays spent, as it does for any refused call.
    const spent = new Changes();
    for (const [scope, value] of nonces) spent.nonces.set(scope, value);
    if (spent.size > 0) await this.storage.write(spent);
  }

  /**
   * Decides `refused` again, and the calls of the next batch decided since on their rows,
   * in the order they first came and with the times they were first decided at, each on the
   * state without the calls before it that the store refused, each stored alone: a call the
   * store still refuses fails alone and is taken back. No other call is decided meanwhile.
   * `stored` names the rows of this batch already written.
   */
  async #decideAgain(refused: Call[], stored: Set<string>): Promise<void> {
    let over = () => {};
    this.#decidingAgain = new Promise<void>((resolve) => {
      over = resolve;
    });
    try {
      const calls = [...refused, ...this.#takeFromNextBatch(refused)];
      // A call of the next batch changed rows just written, which its undo takes back in
      // memory only: the store is read back once they are decided again.
      const readBack = calls.some((call) => call.journal.rowKeys().some((key) => stored.has(key)));
      // Latest first, so that each undo finds its rows as its call left them.
      for (const call of [...calls].reverse()) call.journal.undo();
      for (const call of calls) {
        // The store's unique key refuses a client order id that an order memory let go of
        // holds: read in, it is found taken.
        if (call.clientOrders) {
          await this.#readClientOrders(call.clientOrders, call.clientOrders.clientOrderIds);
        }
        const again = decideCall(call.decide, new Journal(this.#state, true), this.publisher);
        // Stored alone, it is a batch of its own.
        this.#seal();
        const rows = new Changes();
        again.journal.mergeInto(rows);
        rows.nonces.clear();
        try {
          if (rows.size > 0) await this.storage.write(rows);
          publish([again]);
        } catch (cause) {
          again.journal.undo();
          again.journal.refusal = new CallNotStored(
            'The store refused the changes of this call',
            cause,
          );
        }
        call.journal = again.journal;
        call.outcome = again.outcome;
      }
      this.#version++;
      if (readBack) void this.reload().catch(() => undefined);
    } finally {
      this.#decidingAgain = undefined;
      over();
    }
  }

  /**
   * The calls of the batch not yet written that changed rows `refused` changed, or rows
   * those calls changed: decided on the refused calls, they are taken out of their batch to
   * be decided again.
   */
  #takeFromNextBatch(refused: Call[]): Call[] {
    const next = this.#batch;
    if (!next) return [];
    const rows = new Set(refused.flatMap((call) => call.journal.rowKeys()));
    const kept: Call[] = [];
    const taken: Call[] = [];
    for (const call of next.calls) {
      const keys = call.journal.rowKeys();
      if (!keys.some((key) => rows.has(key))) {
        kept.push(call);
        continue;
      }
      for (const key of keys) rows.add(key);
      taken.push(call);
    }
    next.changes.clearRows();
    for (const call of kept) call.journal.mergeInto(next.changes);
    // Decided again, each is stored alone; the batch still writes their nonces.
    next.calls.length = 0;
    for (const call of kept) next.calls.push(call);
    return taken;
  }
}
