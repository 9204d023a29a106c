import { type ExchangeState, loanPlaceOf } from './exchange-state.js';
import type { EntryFilter, HeldTrade, HistoryReads, OrderKey, OwnFill, Page } from './history.js';
import { idNamed } from './ids.js';
import type { Fill, LedgerEntry, Loan, Order, Position, Withdrawal } from './records.js';

/** Whether `order` is `userId`'s and the id names it: digits only, as the store reads them. */
export function orderByKey(state: ExchangeState, userId: number, key: OrderKey): Order | undefined {
  if ('clientOrderId' in key) return state.orderByClientId(userId, key.clientOrderId);
  const id = idNamed(key.id);
  if (id === undefined) return undefined;
  const order = state.orders.get(id);
  return order?.userId === userId ? order : undefined;
}

/** Whether `row` has every field `filter` gives: filters name their records' own fields. */
const picks = <Row extends object>(filter: Partial<Row>, row: Row) =>
  (Object.keys(filter) as (keyof Row)[]).every(
    (field) => filter[field] === undefined || filter[field] === row[field],
  );

/** `limit` of `rows` after `offset`, and how many there are. */
const pageOf = <Row>(rows: readonly Row[], offset: number, limit: number): Page<Row> => ({
  rows: rows.slice(offset, offset + limit),
  total: rows.length,
});

const held = (state: ExchangeState, position: Position): HeldTrade => ({
  position,
  loans: [...state.loansOf(position.id)],
});

const matches = (entry: LedgerEntry, filter: EntryFilter) =>
  (filter.currency === undefined || entry.currency === filter.currency) &&
  (filter.sourceAction === undefined || entry.sourceAction === filter.sourceAction) &&
  (filter.fromMs === undefined || entry.createdAt >= filter.fromMs) &&
  (filter.toMs === undefined || entry.createdAt <= filter.toMs);

/** `userId`'s entries that `filter` picks, newest first, from memory. */
function entriesOf(state: ExchangeState, userId: number, filter: EntryFilter): LedgerEntry[] {
  const entries = state.entriesByUser.of(userId);
  const picked: LedgerEntry[] = [];
  for (let at = entries.length - 1; at >= 0; at--) {
    const entry = entries[at] as LedgerEntry;
    if (matches(entry, filter)) picked.push(entry);
  }
  return picked;
}

const fillsOf = (state: ExchangeState, productId: number): readonly Fill[] =>
  state.fillsByProduct.of(productId);

const second = (fill: Fill) => Math.floor(fill.createdAt / 1000);

/** See `HistoryReads.productFillsSince`. */
function fillsSince(fills: readonly Fill[], fromSecond: number, limit: number): Fill[] {
  const first = fills.findIndex((fill) => second(fill) >= fromSecond);
  if (first < 0) return [];
  let end = Math.min(first + limit, fills.length);
  const last = fills[end - 1] as Fill;
  while (end < fills.length && second(fills[end] as Fill) === second(last)) end++;
  return fills.slice(first, end);
}

/** A user's own fills on a product, newest first, from memory. */
function ownFillsOf(state: ExchangeState, userId: number, productId: number): OwnFill[] {
  const own: OwnFill[] = [];
  const fills = fillsOf(state, productId);
  for (let at = fills.length - 1; at >= 0; at--) {
    const fill = fills[at] as Fill;
    for (const id of [fill.takerOrderId, fill.makerOrderId]) {
      const order = state.orders.get(id);
      if (order?.userId === userId) own.push({ fill, order });
    }
  }
  return own;
}

/**
 * History read from memory, for a store that keeps nothing: there memory holds every order
 * and fill. `current` is the state as it stands when a read is made.
 */
export function memoryHistory(current: () => ExchangeState): HistoryReads {
  const history: HistoryReads = {
    // Its reads await nothing but memory, so no call is decided between two of them.
    together: (work) => work(history),
    countProductFills: async (productId) => current().traded.get(productId)?.count ?? 0,
    orders: async (userId, { statuses, ...filter }, offset, limit) => {
      const picked = current()
        .ordersByUser.of(userId)
        .filter(
          (order) =>
            picks<Order>(filter, order) &&
            (statuses === undefined || statuses.includes(order.status)),
        )
        .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
      return pageOf(picked, offset, limit);
    },
    order: async (userId, key) => orderByKey(current(), userId, key),
    productFills: async (productId, offset, limit) => {
      const fills = fillsOf(current(), productId);
      const end = Math.max(fills.length - offset, 0);
      return fills.slice(Math.max(end - limit, 0), end).reverse();
    },
    productFillsSince: async (productId, fromSecond, limit) =>
      fillsSince(fillsOf(current(), productId), fromSecond, limit),
    fillsOfOrder: async (order) =>
      fillsOf(current(), order.productId).filter(
        (fill) => fill.takerOrderId === order.id || fill.makerOrderId === order.id,
      ),
    ownFills: async (userId, productId, offset, limit) => {
      const own = ownFillsOf(current(), userId, productId);
      return pageOf(own, offset, limit);
    },
    ownFillsSince: async (userId, fromMs) => {
      const state = current();
      return [...state.products.keys()].flatMap((productId) =>
        ownFillsOf(state, userId, productId).filter(({ fill }) => fill.createdAt >= fromMs),
      );
    },
    entries: async (userId, filter, offset, limit) =>
      entriesOf(current(), userId, filter).slice(offset, offset + limit),
    countEntries: async (userId, filter) => entriesOf(current(), userId, filter).length,
    trades: async (userId, filter, offset, limit) => {
      const state = current();
      const picked = state
        .positionsOfUser(userId)
        .filter((position) => picks<Position>(filter, position))
        .sort((a, b) => b.place - a.place);
      const page = pageOf(picked, offset, limit);
      return { ...page, rows: page.rows.map((position) => held(state, position)) };
    },
    trade: async (userId, id) => {
      const state = current();
      const position = state.positions.get(id);
      return position?.userId === userId ? held(state, position) : undefined;
    },
    tradesOpenedBy: async (userId, orderId) => {
      const state = current();
      return state
        .positionsOfUser(userId)
        .filter((position) => position.orderId === orderId)
        .sort((a, b) => a.id - b.id)
        .map((position) => held(state, position));
    },
    loans: async (userId, currency, offset, limit) => {
      const picked = current()
        .loansOfUser(userId)
        .filter((loan) => loan.currency === currency)
        .sort((a, b) => loanPlaceOf(b, userId) - loanPlaceOf(a, userId));
      return pageOf(picked, offset, limit);
    },
    loanBids: async (userId, currency, offset, limit) => {
      const picked = [...current().loanBids.values()]
        .filter((bid) => bid.userId === userId && bid.currency === currency)
        .sort((a, b) => b.id - a.id);
      return pageOf(picked, offset, limit);
    },
    loanBid: async (id) => current().loanBids.get(id),
    loan: async (userId, id) => {
      const loan: Loan | undefined = current().loans.get(id);
      return loan && (loan.lenderId === userId || loan.borrowerId === userId) ? loan : undefined;
    },
    withdrawals: async (userId, filter, offset, limit) => {
      const picked = current()
        .withdrawalsOfUser(userId)
        .filter((withdrawal) => picks<Withdrawal>(filter, withdrawal))
        .sort((a, b) => b.id - a.id);
      return pageOf(picked, offset, limit);
    },
    withdrawal: async (id) => current().withdrawals.get(id),
    deposits: async (userId, currency, offset, limit) => {
      const picked = current()
        .depositsOfUser(userId)
        .filter((deposit) => currency === undefined || deposit.currency === currency)
        .sort((a, b) => b.id - a.id);
      return pageOf(picked, offset, limit);
    },
  };
  return history;
}
