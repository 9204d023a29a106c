import { hasFlag, statesWith, stateTables } from '@exchange-kit/contract/state-tables';
import { ExchangeState, loanKey, ownFillKey } from '../state/exchange-state.js';
import type { D, Order, Withdrawal } from '../state/records.js';
import { type SecondOfFills, secondsInADay } from '../state/seconds-of-a-day.js';
import type { Queryable } from './queryable.js';
import { readRecords, readSelectRecords } from './record-readers.js';
import { columnsOf } from './sandbox-tables.js';
import { sharedDecimals } from './shared-decimals.js';
import { textLiteral } from './table.js';

const openStatuses: readonly string[] = statesWith('order', 'open');
/** The states a withdrawal still moves from, which memory holds it in: all but the ended. */
const unendedWithdrawals: readonly string[] = Object.keys(
  stateTables.tables.withdrawal.states.flags,
).filter((state) => !hasFlag('withdrawal', state as Withdrawal['state'], 'terminal'));

/**
 * The exchange as the store holds it: every table the exchange decides on, read into a new
 * state, and the ids memory hands out next, past both the store's sequences and every id in
 * use.
 */
export async function loadExchangeState(db: Queryable): Promise<ExchangeState> {
  const state = new ExchangeState();
  const query = async <Row>(sql: string) => (await db.query<Row>(sql)).rows;
  // Asked for first, as the open positions and their loans can be many: the store reads them
  // out while this thread reads in what it answered before.
  const decimal = sharedDecimals();
  const openPositions = readRecords(db, 'positions', 'id', {
    filter: { where: "status = 'open'" },
    decimal,
  });
  const openLoans = loansOfOpenPositions(db, decimal);
  // Awaited below; a read that fails before then fails the load, and these with it.
  for (const read of [openPositions, openLoans]) read.catch(() => undefined);
  for (const currency of await readRecords(db, 'currency', null)) {
    state.currencies.set(currency.code, currency);
  }
  for (const product of await readRecords(db, 'product', null)) {
    state.products.set(product.id, product);
  }
  for (const { id, userId, secret } of await readRecords(db, 'apiToken', null)) {
    state.tokens.set(id, { userId, secret });
  }
  for (const user of await readRecords(db, 'user', null)) state.users.set(user.id, user);
  for (const request of await readRecords(db, 'oauthRequest', null)) {
    state.addOAuthRequest(request);
  }
  const entries = await entriesByAccount(db);
  for (const account of await readRecords(db, 'accounts')) {
    state.addAccount({
      ...account,
      entries: entries.get(accountKey(account.userId, account.currency)) ?? 0,
    });
  }
  // Closed orders stay in the store, which answers for them (`store/stored-history.ts`).
  const orders = await readRecords(db, 'orders', 'id', {
    filter: { where: `status IN (${openStatuses.map(textLiteral).join(', ')})` },
    decimal,
  });
  state.addStoredOrders(orders);
  await loadTraded(db, state, orders);
  await loadOwnFillCounts(db, state);
  await loadPositionCounts(db, state);
  await loadLoanCounts(db, state);
  // Closed positions and their loans stay in the store too, which answers for them.
  for (const position of await openPositions) state.addPosition(position);
  // An ended withdrawal, and every deposit, stays in the store too: neither moves again.
  for (const withdrawal of await readRecords(db, 'withdrawal', 'id', {
    // Read on their index by state (migration 0029), not by reading every withdrawal.
    filter: { where: `state IN (${unendedWithdrawals.map(textLiteral).join(', ')})` },
  })) {
    state.addWithdrawal(withdrawal);
  }
  // A closed bid stays in the store too, once nothing lent from it is to come back.
  for (const bid of await readRecords(db, 'loanBid', 'id', {
    filter: { where: "status = 'live' OR lent <> 0" },
  })) {
    state.loanBids.set(bid.id, bid);
  }
  for (const loan of await openLoans) state.addLoan(loan);
  for (const setting of await readRecords(db, 'leverageSetting')) {
    state.leverageSettings.set(setting.tradingAccountId, setting);
  }
  for (const level of await readRecords(db, 'loanBookLevel', null)) state.addLoanLevel(level);
  for (const offset of await readRecords(db, 'clockOffset', null)) state.clockOffset = offset;
  for (const mark of await readRecords(db, 'markPrice', null))
    state.marks.set(mark.productId, mark);
  const [sequences] = await query<Record<string, string | number>>(
    `SELECT (SELECT greatest(last_value + CASE WHEN is_called THEN 1 ELSE 0 END,
         (SELECT coalesce(max(id), 0) + 1 FROM orders)) FROM orders_id_seq) AS order,
       (SELECT last_value + CASE WHEN is_called THEN 1 ELSE 0 END FROM orders_sequence_seq)
         AS order_sequence,
       (SELECT greatest(last_value + CASE WHEN is_called THEN 1 ELSE 0 END,
         (SELECT coalesce(max(id), 0) + 1 FROM fills)) FROM fills_id_seq) AS fill,
       (SELECT last_value + CASE WHEN is_called THEN 1 ELSE 0 END FROM accounts_id_seq) AS account,
       (SELECT greatest(last_value + CASE WHEN is_called THEN 1 ELSE 0 END,
         (SELECT coalesce(max(id), 0) + 1 FROM ledger_entries)) FROM ledger_entries_id_seq)
         AS entry,
       (SELECT coalesce(max(id), 0) + 1 FROM positions) AS position,
       (SELECT coalesce(max(id), 0) + 1 FROM loans) AS loan,
       (SELECT coalesce(max(id), 0) + 1 FROM loan_bids) AS loan_bid,
       (SELECT coalesce(max(id), 0) + 1 FROM withdrawals) AS withdrawal,
       (SELECT coalesce(max(id), 0) + 1 FROM deposits) AS deposit`,
  );
  // A loop, not Math.max(...ids): spreading a million ids overflows the stack.
  const after = (stored: unknown, used: Iterable<number>) => {
    let next = Number(stored);
    for (const id of used) if (id + 1 > next) next = id + 1;
    return next;
  };
  state.next = {
    order: after(sequences?.order, state.orders.keys()),
    // Time priority orders only the open ones, which are all here.
    orderSequence: after(
      sequences?.order_sequence,
      orders.map((order) => order.sequence),
    ),
    // Fills stay in the store too: its greatest id is in `fill`.
    fill: Number(sequences?.fill),
    account: after(
      sequences?.account,
      [...state.accounts.values()].flatMap((byCurrency) =>
        [...byCurrency.values()].map((account) => account.id),
      ),
    ),
    // Ledger entries stay in the store, which answers for them: its greatest id is in `entry`.
    entry: Number(sequences?.entry),
    // So do ended withdrawals and deposits: the greatest ids are the store's.
    withdrawal: Number(sequences?.withdrawal),
    deposit: Number(sequences?.deposit),
    position: Number(sequences?.position),
    loanBid: Number(sequences?.loan_bid),
    loan: Number(sequences?.loan),
  };
  return state;
}

/**
 * The loans of the open positions, open or repaid, each position's read by its own index: the
 * subquery's OFFSET keeps the planner from joining the two tables whole, which it chose when
 * statistics taken before a bulk write of closed positions called every position open, and
 * then read every loan there is. And the open loans of no position (borrowed through test
 * control), which its lender may still set and the house repay.
 */
async function loansOfOpenPositions(db: Queryable, decimal: (stored: unknown) => D) {
  return readSelectRecords(
    db,
    'loan',
    `SELECT * FROM (
       SELECT ${columnsOf('loan', 'l')} FROM positions p
       CROSS JOIN LATERAL (SELECT * FROM loans WHERE position_id = p.id OFFSET 0) AS l
       WHERE p.status = 'open'
       UNION ALL
       SELECT ${columnsOf('loan', 'l')} FROM loans l
       WHERE l.position_id IS NULL AND l.status = 'open') AS held
     ORDER BY id`,
    decimal,
  );
}

/**
 * The last fill of order `o.id` on one side, by that side's index on (order, fill) (migration
 * 0024): the first entry below the next order's, if it is this order's. Asked as a max, or
 * with the order fixed, the planner may walk every fill by id instead, as it did when its
 * statistics were taken while one order made every fill.
 */
const lastFillAs = (side: 'taker' | 'maker') =>
  `(SELECT CASE WHEN f.${side}_order_id = o.id THEN f.id END FROM fills f
    WHERE (f.${side}_order_id, f.id) < (o.id + 1, 0)
    ORDER BY f.${side}_order_id DESC, f.id DESC LIMIT 1)`;

/**
 * The fills of a product made from second `from` on, as the store keeps them folded per second
 * (migration 0030; see TradedProduct), oldest first: a day may hold millions of fills, which a
 * start does not read.
 */
async function daySeconds(
  db: Queryable,
  productId: number,
  from: number,
  decimal: (value: unknown) => D,
): Promise<SecondOfFills[]> {
  const { rows } = await db.query<Record<string, string>>(
    `SELECT second, low, high, volume, value, first_fill_id AS first_id, last_fill_id AS last_id
     FROM fill_seconds WHERE product_id = $1 AND second >= $2 ORDER BY second`,
    [productId, from],
  );
  // The fills are a slice of a table that only grows: statistics taken before a bulk write
  // (PGlite runs no autovacuum; the counts of changes were the writer's) may call the slice
  // the whole table, and a plan that reads it whole was then chosen.
  await db.query('SET LOCAL enable_seqscan = off');
  // The first and last fill of each second, by their ids apart: joined to the seconds, a plan
  // counting on another store's statistics read every fill to find them.
  const { rows: ends } = await db.query<Record<string, string>>(
    'SELECT id, created_at, price, quantity FROM fills WHERE id = ANY($1::bigint[])',
    [rows.flatMap((row) => [row.first_id, row.last_id])],
  );
  await db.query('SET LOCAL enable_seqscan = on');
  const fills = new Map(
    ends.map((row) => [
      String(row.id),
      {
        id: Number(row.id),
        createdAt: Number(row.created_at),
        price: decimal(row.price),
        quantity: decimal(row.quantity),
      },
    ]),
  );
  const fill = (id: string | undefined) => {
    const found = fills.get(String(id));
    if (!found) throw new Error(`fill ${id} of the last day is not in the store`);
    return found;
  };
  return rows.map((row) => ({
    second: Number(row.second),
    low: decimal(row.low),
    high: decimal(row.high),
    volume: decimal(row.volume),
    value: decimal(row.value),
    first: fill(row.first_id),
    last: fill(row.last_id),
  }));
}

/**
 * What the rules need of the stored fills, which stay in the store: each product's count (kept
 * by the store as fills are written: counting them would read them all) and last day of fills
 * (see TradedProduct), and the last fill of each open order that has one.
 */
async function loadTraded(db: Queryable, state: ExchangeState, open: Order[]): Promise<void> {
  const decimal = sharedDecimals();
  const { rows: products } = await db.query<{ product_id: number; fills: string; newest: string }>(
    `SELECT c.product_id, c.fills, newest.created_at AS newest FROM product_fill_counts c
     CROSS JOIN LATERAL (SELECT created_at FROM fills WHERE product_id = c.product_id
       ORDER BY created_at DESC, id DESC LIMIT 1) AS newest`,
  );
  for (const product of products) {
    const traded = state.tradedProduct(Number(product.product_id));
    const from = Math.floor(Number(product.newest) / 1000) - secondsInADay + 1;
    for (const second of await daySeconds(db, Number(product.product_id), from, decimal)) {
      traded.addSecond(second);
    }
    traded.count = Number(product.fills);
  }
  const filled = open.filter((order) => !order.filledQuantity.isZero()).map((order) => order.id);
  if (filled.length === 0) return;
  const { rows } = await db.query<{ id: string; fill: string | null }>(
    `SELECT o.id, greatest(${lastFillAs('taker')}, ${lastFillAs('maker')}) AS fill
     FROM unnest($1::bigint[]) AS o (id)`,
    [filled],
  );
  for (const row of rows) {
    if (row.fill !== null) state.lastStoredFill.set(Number(row.id), Number(row.fill));
  }
}

const accountKey = (userId: unknown, currency: unknown) => `${userId}:${currency}`;

/**
 * How many ledger entries each account has, from the counts the store keeps as entries are
 * written by anyone: an entry's place is one past them, as the store's pages read it.
 */
async function entriesByAccount(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ user_id: string; currency: string; entries: string }>(
    `SELECT user_id, currency, sum(entries)::text AS entries FROM ledger_entry_counts
     GROUP BY user_id, currency`,
  );
  return new Map(rows.map((row) => [accountKey(row.user_id, row.currency), Number(row.entries)]));
}

/**
 * The greatest place under each value of `key` in `table`, which the next one there follows:
 * one step down the index of `key` and `place` per value, where a grouped max would read every
 * row. The key's columns are whole numbers.
 */
async function greatestPlaces(
  db: Queryable,
  table: string,
  key: string[],
  place: string,
): Promise<{ key: number[]; place: number }[]> {
  // Every name here is one of this module's own, never a caller's.
  const columns = [...key, place].join(', ');
  const descending = [...key, place].map((column) => `${column} DESC`).join(', ');
  const above = key.map((column) => `lasts.${column}`).join(', ');
  const { rows } = await db.query<Record<string, string | number>>(
    `WITH RECURSIVE lasts AS (
       (SELECT ${columns} FROM ${table} ORDER BY ${descending} LIMIT 1)
       UNION ALL
       SELECT below.* FROM lasts CROSS JOIN LATERAL (
         SELECT ${columns} FROM ${table} WHERE (${key.join(', ')}) < (${above})
         ORDER BY ${descending} LIMIT 1) AS below
     )
     SELECT ${key.join(', ')}, ${place}::text AS place FROM lasts`,
  );
  return rows.map((row) => ({
    key: key.map((column) => Number(row[column])),
    place: Number(row.place),
  }));
}

/** Where each user's next own fill of each product is placed (migration 0017). */
async function loadOwnFillCounts(db: Queryable, state: ExchangeState): Promise<void> {
  // A store seeded before migration 0017, to be migrated after (as its tests do), has none.
  const { rows: kept } = await db.query<{ found: boolean }>(
    "SELECT to_regclass('own_fills') IS NOT NULL AS found",
  );
  if (!kept[0]?.found) return;
  for (const { key, place } of await greatestPlaces(
    db,
    'own_fills',
    ['user_id', 'product_id'],
    'place',
  )) {
    state.ownFillCounts.set(ownFillKey(key[0] as number, key[1] as number), place);
  }
}

/** Where each user's next position is placed (migration 0027). */
async function loadPositionCounts(db: Queryable, state: ExchangeState): Promise<void> {
  for (const { key, place } of await greatestPlaces(db, 'positions', ['user_id'], 'user_place')) {
    state.positionCounts.set(key[0] as number, place);
  }
}

/**
 * Where each user's next loan of each currency is placed (migration 0028): one past the count
 * the store keeps as loans are written by anyone, which counts a loan once for each party.
 */
async function loadLoanCounts(db: Queryable, state: ExchangeState): Promise<void> {
  // A store seeded before migration 0023, to be migrated after (as its tests do), has none.
  const { rows: kept } = await db.query<{ found: boolean }>(
    "SELECT to_regclass('loan_counts') IS NOT NULL AS found",
  );
  if (!kept[0]?.found) return;
  const { rows } = await db.query<{ user_id: string; currency: string; loans: string }>(
    'SELECT user_id, currency, loans::text AS loans FROM loan_counts',
  );
  for (const row of rows) {
    state.loanCounts.set(loanKey(Number(row.user_id), row.currency), Number(row.loans));
  }
}
