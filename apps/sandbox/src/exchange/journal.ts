import type { Account, D, ExchangeState, Fill, Order } from './state.js';

/**
 * One call's changes to the exchange state: what it touched (with the values before, so a
 * refused call can be undone) and what it created. `sql` writes exactly those rows, as one
 * batch of statements, for the store's transaction.
 */
export class Journal {
  readonly #orders = new Map<Order, Order>();
  readonly #accounts = new Map<Account, Account>();
  readonly #newOrders: Order[] = [];
  readonly #newAccounts: Account[] = [];
  readonly #fills: Fill[] = [];
  readonly #nonces = new Map<string, bigint>();

  constructor(readonly state: ExchangeState) {}

  /** Call before changing `order`: its values now are what an undo brings back. */
  touchOrder(order: Order): Order {
    if (!this.#orders.has(order)) this.#orders.set(order, { ...order });
    return order;
  }

  /** Call once a touched order's price, age or status changed: the book moves it or drops it. */
  reposition(order: Order): void {
    this.state.unrest(order);
    this.state.rest(order);
  }

  touchAccount(account: Account): Account {
    if (!this.#accounts.has(account)) this.#accounts.set(account, { ...account });
    return account;
  }

  addOrder(order: Order): void {
    this.state.addOrder(order);
    this.#newOrders.push(order);
    this.#orders.set(order, { ...order });
  }

  openAccount(userId: number, currency: string, address: string): Account {
    const existing = this.state.account(userId, currency);
    if (existing) return this.touchAccount(existing);
    const account = this.state.openAccount(userId, currency, address);
    this.#newAccounts.push(account);
    return this.touchAccount(account);
  }

  addFill(fill: Fill): void {
    this.state.addFill(fill);
    this.#fills.push(fill);
  }

  nonce(scope: string, value: bigint): void {
    this.#nonces.set(scope, value);
  }

  /** Whether the call changed orders, accounts or fills, which public reads show. */
  get changedMarket(): boolean {
    return this.#orders.size > 0 || this.#accounts.size > 0;
  }

  /** Puts back everything the call changed, its nonce aside: a refused call still spends it. */
  undo(): void {
    for (const fill of this.#fills) this.state.dropFill(fill);
    for (const order of this.#newOrders) this.state.dropOrder(order);
    for (const account of this.#newAccounts) this.state.dropAccount(account);
    const created = new Set<unknown>([...this.#newOrders, ...this.#newAccounts]);
    for (const [order, before] of this.#orders) {
      if (created.has(order)) continue;
      this.state.unrest(order);
      Object.assign(order, before);
      this.state.rest(order);
    }
    for (const [account, before] of this.#accounts) {
      if (!created.has(account)) Object.assign(account, before);
    }
    this.#orders.clear();
    this.#accounts.clear();
    this.#newOrders.length = 0;
    this.#newAccounts.length = 0;
    this.#fills.length = 0;
  }

  /** Adds this call's rows to `changes`, the batch it is stored with. */
  mergeInto(changes: Changes): void {
    for (const order of this.#orders.keys()) changes.orders.set(order.id, order);
    for (const account of this.#accounts.keys()) changes.accounts.set(account.id, account);
    changes.fills.push(...this.#fills);
    for (const [scope, value] of this.#nonces) {
      const known = changes.nonces.get(scope);
      if (known === undefined || known < value) changes.nonces.set(scope, value);
    }
  }

  get empty(): boolean {
    return this.#orders.size === 0 && this.#accounts.size === 0 && this.#nonces.size === 0;
  }
}

/**
 * The rows changed by the calls of one batch. A row touched by several calls is written
 * once, as it stands when the batch is written: every call decided so far is in it.
 */
export class Changes {
  readonly orders = new Map<number, Order>();
  readonly accounts = new Map<number, Account>();
  readonly fills: Fill[] = [];
  readonly nonces = new Map<string, bigint>();

  /** One statement per table, and the store's sequences moved past the ids used in memory. */
  sql(next: ExchangeState['next']): string {
    const statements: string[] = [];
    const orders = [...this.orders.values()];
    if (orders.length > 0) {
      statements.push(
        `INSERT INTO orders (${orderColumns.join(', ')}) VALUES ${orders.map(orderValues).join(', ')}
         ON CONFLICT (id) DO UPDATE SET ${orderColumns
           .filter((column) => column !== 'id')
           .map((column) => `${column} = EXCLUDED.${column}`)
           .join(', ')}`,
      );
    }
    const accounts = [...this.accounts.values()];
    if (accounts.length > 0) {
      statements.push(
        `INSERT INTO accounts (id, user_id, currency, balance, reserved_balance, address)
         VALUES ${accounts
           .map((a) =>
             row([a.id, a.userId, text(a.currency), a.balance, a.reserved, text(a.address)]),
           )
           .join(', ')}
         ON CONFLICT (id) DO UPDATE SET balance = EXCLUDED.balance,
           reserved_balance = EXCLUDED.reserved_balance`,
      );
    }
    if (this.fills.length > 0) {
      statements.push(
        `INSERT INTO fills (id, product_id, taker_order_id, maker_order_id, taker_side, price,
           quantity, created_at)
         VALUES ${this.fills
           .map((f) =>
             row([
               f.id,
               f.productId,
               f.takerOrderId,
               f.makerOrderId,
               text(f.takerSide),
               f.price,
               f.quantity,
               f.createdAt,
             ]),
           )
           .join(', ')}`,
      );
    }
    if (this.nonces.size > 0) {
      statements.push(noncesSql([...this.nonces].map(([scope, value]) => ({ scope, value }))));
    }
    // Rows added outside these calls (fixtures, seeds) take ids from the store's sequences:
    // never one already used here.
    if (orders.length > 0 || this.fills.length > 0 || accounts.length > 0) {
      statements.push(
        `SELECT setval('orders_id_seq', ${Math.max(next.order - 1, 1)}),
           setval('orders_sequence_seq', ${Math.max(next.orderSequence - 1, 1)}),
           setval('fills_id_seq', ${Math.max(next.fill - 1, 1)}),
           setval('accounts_id_seq', ${Math.max(next.account - 1, 1)})`,
      );
    }
    return statements.join(';\n');
  }
}

/** Records nonces; `greatest` keeps a stored one rising whatever order writes land in. */
export function noncesSql(nonces: { scope: string; value: bigint }[]): string {
  return `INSERT INTO nonces (scope, last_nonce)
    VALUES ${nonces.map(({ scope, value }) => `(${text(scope).sql}, ${value})`).join(', ')}
    ON CONFLICT (scope) DO UPDATE SET last_nonce = greatest(nonces.last_nonce, EXCLUDED.last_nonce)`;
}

const orderColumns = [
  'id',
  'user_id',
  'product_id',
  'client_order_id',
  'order_type',
  'side',
  'trading_type',
  'quantity',
  'filled_quantity',
  'price',
  'filled_value',
  'status',
  'leverage_level',
  'funding_currency',
  'take_profit',
  'stop_loss',
  'conditional',
  'trade_id',
  'reserved_amount',
  'reserved_currency',
  'sequence',
  'created_at',
  'updated_at',
];

function orderValues(o: Order): string {
  return row([
    o.id,
    o.userId,
    o.productId,
    o.clientOrderId === null ? null : text(o.clientOrderId),
    text(o.orderType),
    text(o.side),
    text(o.tradingType),
    o.quantity,
    o.filledQuantity,
    o.price,
    o.filledValue,
    text(o.status),
    o.leverageLevel,
    text(o.fundingCurrency),
    o.takeProfit,
    o.stopLoss,
    o.conditional,
    o.tradeId,
    o.reservedAmount,
    text(o.reservedCurrency),
    o.sequence,
    o.createdAt,
    o.updatedAt,
  ]);
}

/** A string as an SQL literal. Calls refuse text holding NUL before it gets this far. */
function text(value: string): Literal {
  if (value.includes('\u0000')) throw new Error('NUL in a stored string');
  return { sql: `'${value.replaceAll("'", "''")}'` };
}

type Literal = { sql: string };

function row(values: (Literal | D | number | boolean | null)[]): string {
  return `(${values
    .map((value) => {
      if (value === null) return 'NULL';
      if (typeof value === 'number') {
        if (!Number.isSafeInteger(value)) throw new Error(`Not an integer: ${value}`);
        return String(value);
      }
      if (typeof value === 'boolean') return String(value);
      if ('sql' in value) return value.sql;
      // A decimal: digits, a point and a sign only, which toFixed guarantees.
      return `${value.toFixed()}::numeric`;
    })
    .join(', ')})`;
}
