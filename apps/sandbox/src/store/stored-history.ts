import type {
  EntryFilter,
  HistoryReads,
  OrderFilter,
  OwnFill,
  StoredHistory,
} from '../state/history.js';
import { idNamed } from '../state/ids.js';
import type { Order } from '../state/records.js';
import type { Database } from './database.js';
import { fundingHistory } from './funding-history.js';
import {
  bigint,
  countOf,
  deepOffset,
  pageOf,
  type Row,
  rowsOf,
  unstorable,
  userRowsWhere,
  type Where,
} from './history-queries.js';
import type { Queryable } from './queryable.js';
import { recordReader } from './record-readers.js';
import { columnsOf, selectFrom } from './sandbox-tables.js';
import { tradeHistory } from './trade-history.js';

/** The WHERE of a user's orders that `filter` picks, and its parameters after `$1`, the user. */
export const ordersWhere = (userId: number, filter: OrderFilter): Where =>
  userRowsWhere(userId, [
    ['product_id =', filter.productId],
    // One status is a plain equality, which the index by user and status serves in order.
    filter.statuses?.length === 1
      ? ['status =', filter.statuses[0]]
      : ['status = ANY($::text[])', filter.statuses],
    ['trading_type =', filter.tradingType],
    ['funding_currency =', filter.fundingCurrency],
  ]);

/** The WHERE of a user's entries that `filter` picks, and its parameters after `$1`. */
const entriesWhere = (userId: number, filter: EntryFilter): Where =>
  userRowsWhere(userId, [
    ['currency =', filter.currency],
    ['source_action =', filter.sourceAction],
    // Times are whole milliseconds: a fractional bound picks what its whole neighbour inside does.
    ['created_at >=', filter.fromMs === undefined ? undefined : bigint(Math.ceil(filter.fromMs))],
    ['created_at <=', filter.toMs === undefined ? undefined : bigint(Math.floor(filter.toMs))],
  ]);

/** Whether `filter` picks one currency's entries and nothing else. */
const onlyCurrency = (filter: EntryFilter): filter is EntryFilter & { currency: string } =>
  filter.currency !== undefined &&
  filter.sourceAction === undefined &&
  filter.fromMs === undefined &&
  filter.toMs === undefined;

/** `limit` of a user's entries that `filter` picks, newest first, after `offset`. */
function entriesPage(
  tx: Queryable,
  userId: number,
  filter: EntryFilter,
  offset: number,
  limit: number,
  deep: number,
): Promise<Row[]> {
  const picked = entriesWhere(userId, filter);
  // One currency's entries are in the order of their places, whose index (0015) serves the
  // page: the index by id within a currency went in 0026.
  const order = filter.currency === undefined ? 'ORDER BY id DESC' : 'ORDER BY currency_place DESC';
  return pageOf(tx, 'ledgerEntry', picked, order, { offset, limit }, deep);
}

// A fill of one of the user's orders, once for each of them (migration 0017), with its order.
const ownFillsFrom = `FROM own_fills w JOIN fills f ON f.id = w.fill_id JOIN orders o ON o.id = w.order_id`;
const ownFillColumns = `${columnsOf('fills', 'f')}, o.id AS order_id, o.side AS order_side,
  o.trading_type AS order_trading_type, o.client_order_id AS order_client_order_id`;

// A page holds a few rows: each decimal read alone, where a start shares equal ones.
const orderOf = recordReader('orders');
const fillOf = recordReader('fills');
const entryOf = recordReader('ledgerEntry');

function ownFillOf(row: Row): OwnFill {
  return {
    fill: fillOf(row),
    order: {
      id: Number(row.order_id),
      side: row.order_side as Order['side'],
      tradingType: row.order_trading_type as Order['tradingType'],
      clientOrderId: row.order_client_order_id === null ? null : String(row.order_client_order_id),
    },
  };
}

/** A product's fills from `first` on, by id: `limit` of them and the rest of the last one's second. */
async function fillsFrom(tx: Queryable, productId: number, first: number, limit: number) {
  const page = await rowsOf(
    tx,
    `${selectFrom('fills')} WHERE product_id = $1 AND id >= $2 ORDER BY id LIMIT $3`,
    [productId, first, limit],
  );
  const last = page.at(-1);
  if (!last) return page;
  const second = Math.floor(Number(last.created_at) / 1000);
  // The fills after it up to the first of another second, as the memory twin walks them.
  const rest = await rowsOf(
    tx,
    `${selectFrom('fills')} WHERE product_id = $1 AND id > $2 AND id < coalesce(
       (SELECT min(id) FROM fills WHERE product_id = $1 AND id > $2
          AND (created_at < $3 OR created_at >= $4)), 9223372036854775807)
     ORDER BY id`,
    [productId, Number(last.id), second * 1000, (second + 1) * 1000],
  );
  return [...page, ...rest];
}

/**
 * History read from the store, each read in one transaction of its own, or those of
 * `together` in one.
 */
export function storedHistory(db: Pick<Database, 'read'>, options = { deepOffset }): StoredHistory {
  const reads: HistoryReads = {
    together: (work) =>
      db.read((tx) => work(storedHistory({ read: (one) => one(tx) }, options).reads)),
    countProductFills: (productId) =>
      db.read((tx) =>
        // The store's count (migration 0015): not by reading every fill of the product.
        countOf(
          tx,
          'SELECT coalesce(sum(fills), 0) AS count FROM product_fill_counts WHERE product_id = $1',
          [productId],
        ),
      ),
    orders: async (userId, filter, offset, limit) => {
      if (Object.values(filter).some(unstorable)) return { rows: [], total: 0 };
      return db.read(async (tx) => {
        const picked = ordersWhere(userId, filter);
        const { where, params } = picked;
        const newestFirst = 'ORDER BY created_at DESC, id DESC';
        const page = { offset, limit };
        const rows = await pageOf(tx, 'orders', picked, newestFirst, page, options.deepOffset);
        // Counted from the store's counts of each kind (migration 0019), whose columns are the
        // filter's: not by reading every order of the user.
        const total = await countOf(
          tx,
          `SELECT coalesce(sum(orders), 0) AS count FROM order_counts WHERE ${where}`,
          params,
        );
        return { rows: rows.map(orderOf), total };
      });
    },
    order: (userId, key) =>
      db.read(async (tx) => {
        if ('id' in key && idNamed(key.id) === undefined) return undefined;
        if ('clientOrderId' in key && unstorable(key.clientOrderId)) return undefined;
        const [row] =
          'id' in key
            ? await rowsOf(tx, `${selectFrom('orders')} WHERE id = $1 AND user_id = $2`, [
                Number(key.id),
                userId,
              ])
            : await rowsOf(
                tx,
                `${selectFrom('orders')} WHERE user_id = $1 AND client_order_id = $2`,
                [userId, key.clientOrderId],
              );
        return row && orderOf(row);
      }),
    productFills: (productId, offset, limit) =>
      db.read(async (tx) => {
        const picked = { where: 'product_id = $1', params: [productId] };
        const page = { offset, limit };
        const rows = await pageOf(
          tx,
          'fills',
          picked,
          'ORDER BY id DESC',
          page,
          options.deepOffset,
        );
        return rows.map(fillOf);
      }),
    productFillsSince: (productId, fromSecond, limit) =>
      db.read(async (tx) => {
        // Times only grow with ids, so the first made from that second on is the first by id.
        const [first] = await rowsOf(
          tx,
          `SELECT id FROM fills WHERE product_id = $1 AND created_at >= $2
           ORDER BY created_at, id LIMIT 1`,
          [productId, bigint(fromSecond * 1000)],
        );
        if (!first) return [];
        const rows = await fillsFrom(tx, productId, Number(first.id), limit);
        return rows.map(fillOf);
      }),
    fillsOfOrder: (order) =>
      db.read(async (tx) => {
        const rows = await rowsOf(
          tx,
          `${selectFrom('fills')} WHERE taker_order_id = $1 OR maker_order_id = $1 ORDER BY id`,
          [order.id],
        );
        return rows.map(fillOf);
      }),
    ownFills: (userId, productId, offset, limit) =>
      db.read(async (tx) => {
        // The greatest place is the count, and a page, newest first, a range of places.
        const total = await countOf(
          tx,
          'SELECT coalesce(max(place), 0) AS count FROM own_fills WHERE user_id = $1 AND product_id = $2',
          [userId, productId],
        );
        const rows = await rowsOf(
          tx,
          `SELECT ${ownFillColumns} ${ownFillsFrom} WHERE w.user_id = $1 AND w.product_id = $2
           AND w.place <= $3::bigint ORDER BY w.place DESC LIMIT $4`,
          [userId, productId, total - bigint(offset), limit],
        );
        return { rows: rows.map(ownFillOf), total };
      }),
    ownFillsSince: (userId, fromMs) =>
      db.read(async (tx) => {
        const rows = await rowsOf(
          tx,
          `SELECT ${ownFillColumns} ${ownFillsFrom} WHERE w.user_id = $1 AND w.created_at >= $2
           ORDER BY w.fill_id DESC, w.taker DESC`,
          [userId, fromMs],
        );
        return rows.map(ownFillOf);
      }),
    ...tradeHistory(db, options.deepOffset),
    ...fundingHistory(db, options.deepOffset),
    entries: async (userId, filter, offset, limit) => {
      if (Object.values(filter).some(unstorable)) return [];
      const rows = await db.read((tx) =>
        onlyCurrency(filter)
          ? rowsOf(
              tx,
              // A page of one currency's entries is a range of their places (migration 0015),
              // bounded in bigint as the index is: a numeric bound would filter every row.
              `${selectFrom('ledgerEntry')} WHERE user_id = $1 AND currency = $2
               AND currency_place <= (SELECT coalesce(sum(entries), 0)::bigint
                 FROM ledger_entry_counts WHERE user_id = $1 AND currency = $2) - $3::bigint
               ORDER BY currency_place DESC LIMIT $4`,
              [userId, filter.currency, bigint(offset), limit],
            )
          : entriesPage(tx, userId, filter, offset, limit, options.deepOffset),
      );
      return rows.map(entryOf);
    },
    countEntries: async (userId, filter) => {
      if (Object.values(filter).some(unstorable)) return 0;
      const timed = filter.fromMs !== undefined || filter.toMs !== undefined;
      const { where, params } = entriesWhere(userId, filter);
      // Without a time the store's counts per currency and kind answer (migration 0015).
      const table = timed ? 'ledger_entries' : 'ledger_entry_counts';
      const count = timed ? 'count(*)' : 'coalesce(sum(entries), 0)';
      return db.read((tx) =>
        countOf(tx, `SELECT ${count} AS count FROM ${table} WHERE ${where}`, params),
      );
    },
  };
  return {
    reads,
    ordersByClientId: (userId, clientOrderIds) =>
      db.read(async (tx) => {
        const rows = await rowsOf(
          tx,
          `${selectFrom('orders')} WHERE user_id = $1 AND client_order_id = ANY($2)`,
          [userId, clientOrderIds.filter((id) => !unstorable(id))],
        );
        return rows.map(orderOf);
      }),
  };
}
