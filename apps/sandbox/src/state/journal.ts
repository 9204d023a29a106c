import type { ExchangeState } from './exchange-state.js';
import type { PartnerState } from './partner-state.js';
import type { Account, D, Fill, LedgerEntry, Order, OwnFill, Position } from './records.js';
import {
  type HistoryKind,
  type RecordKind,
  type Records,
  recordKinds,
  type SandboxState,
} from './sandbox-state.js';

/**
 * A state object as the one call that touched it may change it. State objects are read-only
 * by type everywhere else: a change made without the Journal would be answered and then lost,
 * since only what the Journal knows is stored.
 */
export type Writable<T> = { -readonly [Field in keyof T]: T[Field] };

/**
 * An account as a call may change it: its reserved balance, never its balance, which moves
 * only as an entry is posted to the ledger (`appendEntry`, through `exchange/ledger.ts`), so
 * that every balance is the sum of its entries.
 */
export type WritableAccount = Writable<Omit<Account, 'balance' | 'entries'>> &
  Pick<Account, 'balance' | 'entries'>;

/**
 * A ledger entry as it is posted: its id, the balance after it and its place are the journal's.
 */
export type NewEntry = Omit<LedgerEntry, 'id' | 'balance' | 'currencyPlace'>;

/** A record as a call changed it, with its values before for an undo. */
type TouchedRecord = { kind: RecordKind; row: Records[RecordKind] } & (
  | { created: false; before: Records[RecordKind] }
  // An undo drops what the call created: no values before to bring back.
  | { created: true }
);

/**
 * One call's changes to the sandbox state: what it touched (with the values before, so a
 * refused call can be undone) and what it created; `mergeInto` hands those rows to the batch
 * they are stored with.
 */
export class Journal {
  readonly #orders = new Map<Order, Order>();
  readonly #accounts = new Map<Account, Account>();
  readonly #positions = new Map<Position, Position>();
  readonly #newOrders: Order[] = [];
  readonly #newAccounts: Account[] = [];
  readonly #newPositions: Position[] = [];
  readonly #fills: Fill[] = [];
  readonly #ownFills: OwnFill[] = [];
  readonly #nonces = new Map<string, bigint>();
  readonly #records = new Map<object, TouchedRecord>();
  readonly #marksMoved = new Set<number>();
  /** Why the store did not keep this call's changes, once it is known they were withdrawn. */
  refusal: Error | undefined;

  /**
   * @param again Whether the call is decided again, the store having refused a call it was
   *   first decided after: what it spent then (its nonce) it does not spend a second time.
   */
  constructor(
    readonly state: SandboxState,
    readonly again = false,
  ) {}

  get exchange(): ExchangeState {
    return this.state.exchange;
  }

  get partner(): PartnerState {
    return this.state.partner;
  }

  /** The rows this call changed or created, by table and id; nonces aside. */
  rowKeys(): string[] {
    return [
      ...[...this.#orders.keys()].map((order) => `order:${order.id}`),
      ...[...this.#accounts.keys()].map((account) => `account:${account.id}`),
      ...[...this.#positions.keys()].map((position) => `position:${position.id}`),
      ...[...this.#records.values()].map(recordKey),
    ];
  }

  /**
   * The writable handle of a record (an OAuth request, a partner's session, intent,
   * transaction or instruction): its values now are what an undo brings back, and the record
   * is stored whole with the call's batch.
   */
  touch<Kind extends Exclude<RecordKind, HistoryKind>>(
    kind: Kind,
    row: Records[Kind],
  ): Writable<Records[Kind]> {
    if (!this.#records.has(row)) {
      this.#records.set(row, { kind, row, before: { ...row }, created: false });
    }
    return row;
  }

  /** Adds a new record to the state; an undo drops it. */
  add<Kind extends RecordKind>(kind: Kind, row: Records[Kind]): Writable<Records[Kind]> {
    recordKinds[kind].add(this.state, row);
    this.#records.set(row, { kind, row, created: true });
    return row;
  }

  /** The writable handle of `order`: its values now are what an undo brings back. */
  touchOrder(order: Order): Writable<Order> {
    if (!this.#orders.has(order)) this.#orders.set(order, { ...order });
    this.#uncheck(order);
    return order;
  }

  /** An order that closes a margin position changes what its position's mark may reach. */
  #uncheck(order: Order): void {
    if (order.unwoundTradeId !== null && order.tradingType !== 'spot') {
      this.state.exchange.uncheck(order.productId, order.unwoundTradeId);
    }
  }

  /** Call once a touched order's price, age or status changed: the book moves it or drops it. */
  reposition(order: Order): void {
    this.state.exchange.unrest(order);
    this.state.exchange.rest(order);
  }

  touchAccount(account: Account): WritableAccount {
    if (!this.#accounts.has(account)) this.#accounts.set(account, { ...account });
    return account;
  }

  touchPosition(position: Position): Writable<Position> {
    if (!this.#positions.has(position)) this.#positions.set(position, { ...position });
    this.state.exchange.uncheck(position.productId, position.id);
    return position;
  }

  addPosition(position: Position): Writable<Position> {
    this.state.exchange.addPosition(position);
    this.state.exchange.uncheck(position.productId, position.id);
    this.#newPositions.push(position);
    this.#positions.set(position, { ...position });
    return position;
  }

  addOrder(order: Order): Writable<Order> {
    this.state.exchange.addOrder(order);
    this.#uncheck(order);
    this.#newOrders.push(order);
    this.#orders.set(order, { ...order });
    return order;
  }

  openAccount(userId: number, currency: string, address: string): WritableAccount {
    const existing = this.state.exchange.account(userId, currency);
    if (existing) return this.touchAccount(existing);
    const account = this.state.exchange.openAccount(userId, currency, address);
    this.#newAccounts.push(account);
    return this.touchAccount(account);
  }

  /**
   * Moves the balance of an open account by `entry.amount` and appends the entry, with the
   * balance after it, to the ledger: the two together or neither, as the only way a balance
   * changes.
   */
  appendEntry(entry: NewEntry): LedgerEntry {
    const account = this.state.exchange.account(entry.userId, entry.currency);
    if (!account) throw new Error(`User ${entry.userId} has no ${entry.currency} account`);
    const balance = account.balance.plus(entry.amount);
    const currencyPlace = account.entries + 1;
    const posting = this.touchAccount(account) as Writable<Account>;
    posting.balance = balance;
    // Placed here, where the count is at hand: the store's trigger would look it up per row.
    posting.entries = currencyPlace;
    const id = this.state.exchange.next.entry++;
    // Field by field, not spread: every entry then shares one shape, which a fill's eight
    // entries copy quickly, where a spread's copy of a posting's shape took microseconds.
    const { userId, currency, amount, sourceAction, sourceObjectType, sourceObjectId } = entry;
    return this.add('ledgerEntry', {
      id,
      userId,
      currency,
      amount,
      balance,
      sourceAction,
      sourceObjectType,
      sourceObjectId,
      createdAt: entry.createdAt,
      currencyPlace,
    });
  }

  addFill(fill: Fill): void {
    this.state.exchange.addFill(fill);
    this.#fills.push(fill);
    // Placed here, where the counts are at hand; the maker's side first, as the store's
    // trigger places another writer's (migration 0017).
    const sides = [
      [fill.makerOrderId, false],
      [fill.takerOrderId, true],
    ] as const;
    for (const [orderId, taker] of sides) {
      const order = this.state.exchange.orders.get(orderId);
      if (!order) throw new Error(`Fill ${fill.id} names order ${orderId}, which is not held`);
      const { userId, productId } = order;
      const place = this.state.exchange.placeOwnFill(userId, productId);
      const { id: fillId, createdAt } = fill;
      this.#ownFills.push({ userId, productId, place, fillId, orderId, taker, createdAt });
    }
  }

  /** The orders this call placed or changed, as it left them. */
  orders(): Order[] {
    return [...this.#orders.keys()];
  }

  /** The positions this call opened or changed, as it left them. */
  positions(): Position[] {
    return [...this.#positions.keys()];
  }

  /** The records of `kind` this call added or changed, as it left them. */
  records<Kind extends RecordKind>(kind: Kind): Records[Kind][] {
    return [...this.#records.values()]
      .filter((record) => record.kind === kind)
      .map((record) => record.row as Records[Kind]);
  }

  /** The accounts this call opened or changed, as it left them. */
  accounts(): Account[] {
    return [...this.#accounts.keys()];
  }

  /** The fills this call made, in the order it made them. */
  fills(): readonly Fill[] {
    return this.#fills;
  }

  /**
   * Moves the mark price of `productId` until its next fill: the call then changed the market
   * as a fill does, for the public reads and the product's channel.
   */
  moveMark(productId: number, price: D): void {
    const { exchange } = this.state;
    const fills = exchange.traded.get(productId)?.count ?? 0;
    const held = exchange.marks.get(productId);
    if (held) Object.assign(this.touch('markPrice', held), { price, fills });
    else this.add('markPrice', { productId, price, fills });
    this.#marksMoved.add(productId);
  }

  /** The products whose mark price this call moved. */
  marksMoved(): ReadonlySet<number> {
    return this.#marksMoved;
  }

  /** Whether this call traded on `productId`: only then can its price have reached a trigger. */
  traded(productId: number): boolean {
    return this.#fills.some((fill) => fill.productId === productId);
  }

  nonce(scope: string, value: bigint): void {
    this.#nonces.set(scope, value);
  }

  /** Whether the call changed orders, accounts, fills, products or marks, which public reads show. */
  get changedMarket(): boolean {
    if (this.#orders.size > 0 || this.#accounts.size > 0 || this.#marksMoved.size > 0) return true;
    for (const { kind } of this.#records.values()) if (kind === 'product') return true;
    return false;
  }

  #undoRecords(): void {
    // Latest first: a row the call created is dropped after the rows created since, which
    // may name it.
    for (const record of [...this.#records.values()].reverse()) {
      const drop = recordKinds[record.kind].drop as (state: SandboxState, row: object) => void;
      if (record.created) drop(this.state, record.row);
      else Object.assign(record.row, record.before);
    }
    this.#records.clear();
  }

  /**
   * Puts back everything the call changed, its nonce aside: a refused call still spends it.
   * Right only while no later call has changed the same rows, or once those are undone.
   */
  undo(): void {
    this.#undoRecords();
    for (const fill of this.#fills) this.state.exchange.dropFill(fill);
    for (const ownFill of [...this.#ownFills].reverse()) {
      this.state.exchange.unplaceOwnFill(ownFill);
    }
    for (const order of this.#newOrders) this.state.exchange.dropOrder(order);
    for (const account of this.#newAccounts) this.state.exchange.dropAccount(account);
    for (const position of [...this.#newPositions].reverse()) {
      this.state.exchange.dropPosition(position);
      this.state.exchange.unplacePosition(position);
    }
    const created = new Set<unknown>([
      ...this.#newOrders,
      ...this.#newAccounts,
      ...this.#newPositions,
    ]);
    // What the undone call changed is read again for the prices that reach its positions.
    for (const order of this.#orders.keys()) this.#uncheck(order);
    for (const position of this.#positions.keys()) {
      this.state.exchange.uncheck(position.productId, position.id);
    }
    for (const [order, before] of this.#orders) {
      if (created.has(order)) continue;
      this.state.exchange.unrest(order);
      Object.assign(order, before);
      this.state.exchange.rest(order);
    }
    for (const [account, before] of this.#accounts) {
      if (!created.has(account)) Object.assign(account, before);
    }
    for (const [position, before] of this.#positions) {
      if (!created.has(position)) Object.assign(position, before);
    }
    this.#orders.clear();
    this.#accounts.clear();
    this.#positions.clear();
    this.#newOrders.length = 0;
    this.#newAccounts.length = 0;
    this.#newPositions.length = 0;
    this.#fills.length = 0;
    this.#ownFills.length = 0;
  }

  /** Adds this call's rows to `changes`, the batch it is stored with. */
  mergeInto(changes: Changes): void {
    mergeTouched(this.#orders, this.#newOrders, changes.orders, changes.storedOrders);
    for (const account of this.#accounts.keys()) changes.accounts.set(account.id, account);
    mergeTouched(this.#positions, this.#newPositions, changes.positions, changes.storedPositions);
    // A loop, not push(...): one order may make more fills than a call may spread as arguments.
    for (const fill of this.#fills) changes.fills.push(fill);
    for (const ownFill of this.#ownFills) changes.ownFills.push(ownFill);
    for (const record of this.#records.values()) {
      const key = recordKey(record);
      if (record.created && !changes.records.has(key)) changes.addedRecords.add(key);
      changes.records.set(key, record);
    }
    for (const [scope, value] of this.#nonces) {
      const known = changes.nonces.get(scope);
      if (known === undefined || known < value) changes.nonces.set(scope, value);
    }
  }

  get empty(): boolean {
    return (
      this.#orders.size === 0 &&
      this.#accounts.size === 0 &&
      this.#nonces.size === 0 &&
      this.#records.size === 0 &&
      this.#marksMoved.size === 0
    );
  }
}

/**
 * A call's touched rows (each with its copy before the call) into a batch's, by id: the first
 * call of the batch to touch a row says what the store held of it, null for a row it created.
 */
function mergeTouched<Row extends { id: number }>(
  touched: Map<Row, Row>,
  created: readonly Row[],
  rows: Map<number, Row>,
  stored: Map<number, Row | null>,
): void {
  const isNew = new Set(created);
  for (const [row, before] of touched) {
    if (!rows.has(row.id)) stored.set(row.id, isNew.has(row) ? null : before);
    rows.set(row.id, row);
  }
}

const recordKey = (record: { kind: RecordKind; row: Records[RecordKind] }) =>
  `${record.kind}:${(recordKinds[record.kind].key as (row: object) => string)(record.row)}`;

/** A record as a batch stores it: whole, as it stands when it is written. */
export interface StoredRecord {
  kind: RecordKind;
  row: Records[RecordKind];
}

/**
 * The rows changed by the calls of one batch. A row touched by several calls is written
 * once, as it stands when the batch is written: every call decided so far is in it.
 */
export class Changes {
  readonly orders = new Map<number, Order>();
  readonly accounts = new Map<number, Account>();
  readonly positions = new Map<number, Position>();
  readonly fills: Fill[] = [];
  /** Each fill's sides, placed: only ever added, as fills are. */
  readonly ownFills: OwnFill[] = [];
  readonly nonces = new Map<string, bigint>();
  /** Records, by kind and key. */
  readonly records = new Map<string, StoredRecord>();
  /**
   * What the store holds of the batch's orders and positions before it, by id: each as the
   * first call of the batch to touch it found it, or null for one a call of the batch placed
   * or opened. The store's counts of them move by the difference.
   */
  readonly storedOrders = new Map<number, Order | null>();
  readonly storedPositions = new Map<number, Position | null>();
  /** The keys of the records a call of the batch added: the store holds none of them yet. */
  readonly addedRecords = new Set<string>();

  /** How many rows the batch writes. */
  get size(): number {
    return (
      this.orders.size +
      this.accounts.size +
      this.positions.size +
      this.nonces.size +
      this.records.size
    );
  }

  /**
   * How many of the batch's rows may replace a stored one, leaving its room to reclaim: ledger
   * entries, like fills, are only ever added, and a margin fill writes eight of them.
   */
  get rewrites(): number {
    let entries = 0;
    for (const { kind } of this.records.values()) if (kind === 'ledgerEntry') entries++;
    return this.size - entries;
  }

  /** Forgets every row but the nonces, which only ever grow. */
  clearRows(): void {
    this.records.clear();
    this.addedRecords.clear();
    this.orders.clear();
    this.storedOrders.clear();
    this.accounts.clear();
    this.positions.clear();
    this.storedPositions.clear();
    this.fills.length = 0;
    this.ownFills.length = 0;
  }
}
