import type { HeldTrade, HistoryReads, TradeFilter } from '../state/history.js';
import type { Position } from '../state/records.js';
import type { Database } from './database.js';
import {
  bigint,
  countOf,
  pageOf,
  rowsOf,
  unstorable,
  userRowsWhere,
  type Where,
} from './history-queries.js';
import type { Queryable } from './queryable.js';
import { recordReader } from './record-readers.js';
import { selectFrom } from './sandbox-tables.js';

const positionOf = recordReader('positions');
const loanOf = recordReader('loan');
const loanBidOf = recordReader('loanBid');

/** The WHERE of a user's positions that `filter` picks, and its parameters after `$1`. */
const tradesWhere = (userId: number, filter: TradeFilter): Where =>
  userRowsWhere(userId, [
    ['status =', filter.status],
    ['side =', filter.side],
    ['product_id =', filter.productId],
    ['funding_currency =', filter.fundingCurrency],
    ['trading_type =', filter.tradingType],
  ]);

/** `positions` with the loans each took, oldest first, read by the positions' ids. */
async function withLoans(tx: Queryable, positions: Position[]): Promise<HeldTrade[]> {
  if (positions.length === 0) return [];
  const loans = (
    await rowsOf(tx, `${selectFrom('loan')} WHERE position_id = ANY($1) ORDER BY id`, [
      positions.map((position) => position.id),
    ])
  ).map(loanOf);
  return positions.map((position) => ({
    position,
    loans: loans.filter((loan) => loan.positionId === position.id),
  }));
}

const partyTo = '(lender_id = $1 OR borrower_id = $1)';

/** How many loans of currency `$2` user `$1` has, lent or borrowed: the place of their last. */
const loansCounted = `(SELECT coalesce(sum(loans), 0)::bigint FROM loan_counts
  WHERE user_id = $1 AND currency = $2)`;
/** The greatest place on a page `$4` loans in, newest first: the page reads down from it. */
const pageTop = `${loansCounted} - $4::bigint`;

/**
 * A read of a page of a user's rows of one currency: `pageSql` takes the user, the currency,
 * the limit and the offset, `countSql` the user and the currency.
 */
function currencyPage<T>(
  db: Pick<Database, 'read'>,
  read: (row: Record<string, unknown>) => T,
  pageSql: string,
  countSql: string,
) {
  return async (userId: number, currency: string, offset: number, limit: number) => {
    if (unstorable(currency)) return { rows: [], total: 0 };
    return db.read(async (tx) => {
      const rows = await rowsOf(tx, pageSql, [userId, currency, limit, bigint(offset)]);
      const total = await countOf(tx, countSql, [userId, currency]);
      return { rows: rows.map(read), total };
    });
  };
}

/**
 * The reads of trades, loans and loan bids from the store, which holds every one, open or not;
 * memory holds only the open positions and their loans, and the bids loans may come back to
 * (`loadExchangeState`).
 */
export function tradeHistory(
  db: Pick<Database, 'read'>,
  deepOffset?: number,
): Pick<
  HistoryReads,
  'trades' | 'trade' | 'tradesOpenedBy' | 'loans' | 'loan' | 'loanBids' | 'loanBid'
> {
  return {
    trades: async (userId, filter, offset, limit) => {
      if (Object.values(filter).some(unstorable)) return { rows: [], total: 0 };
      return db.read(async (tx) => {
        const picked = tradesWhere(userId, filter);
        const { where, params } = picked;
        // Newest first is last placed first (migration 0027): a user's positions are placed
        // in the order they were opened, or written by another writer.
        const newestFirst = 'ORDER BY user_place DESC';
        const page = { offset, limit };
        const rows = Object.values(filter).every((value) => value === undefined)
          ? // All of a user's positions: a range of their places, bounded in bigint as the
            // index is.
            await rowsOf(
              tx,
              `${selectFrom('positions')} WHERE user_id = $1
               AND user_place <= (SELECT coalesce(sum(trades), 0)::bigint
                 FROM trade_counts WHERE user_id = $1) - $2::bigint
               ORDER BY user_place DESC LIMIT $3`,
              [userId, bigint(offset), limit],
            )
          : await pageOf(tx, 'positions', picked, newestFirst, page, deepOffset);
        // Counted from the store's counts of each kind (migration 0023), whose columns are the
        // filter's: not by reading every position of the user.
        const total = await countOf(
          tx,
          `SELECT coalesce(sum(trades), 0) AS count FROM trade_counts WHERE ${where}`,
          params,
        );
        return { rows: await withLoans(tx, rows.map(positionOf)), total };
      });
    },
    trade: (userId, id) =>
      db.read(async (tx) => {
        const rows = await rowsOf(tx, `${selectFrom('positions')} WHERE id = $1 AND user_id = $2`, [
          bigint(id),
          userId,
        ]);
        const [found] = await withLoans(tx, rows.map(positionOf));
        return found;
      }),
    // On the index of the opening order (migration 0036), which a trade of an older store,
    // without one, is not on.
    tradesOpenedBy: (userId, orderId) =>
      db.read(async (tx) => {
        const rows = await rowsOf(
          tx,
          `${selectFrom('positions')} WHERE order_id = $1 AND user_id = $2 ORDER BY id`,
          [bigint(orderId), userId],
        );
        return withLoans(tx, rows.map(positionOf));
      }),
    // A user's loans of a currency are placed in one list, lent or borrowed (migration 0028):
    // the page is the places below the count less the offset, on each party's index, as far
    // as the page reaches, merged. A loan to oneself is on both; it is read as the lender's.
    loans: currencyPage(
      db,
      loanOf,
      `${selectFrom('loan')} WHERE id IN (
         SELECT id FROM (
           (SELECT id, lender_place AS place FROM loans
            WHERE lender_id = $1 AND currency = $2 AND lender_place <= ${pageTop}
            ORDER BY lender_place DESC LIMIT $3)
           UNION ALL
           (SELECT id, borrower_place FROM loans
            WHERE borrower_id = $1 AND currency = $2 AND borrower_place <= ${pageTop}
              AND lender_id IS DISTINCT FROM $1
            ORDER BY borrower_place DESC LIMIT $3)) AS ids
         ORDER BY place DESC LIMIT $3)
       ORDER BY CASE WHEN lender_id = $1 THEN lender_place ELSE borrower_place END DESC`,
      `SELECT ${loansCounted} AS count`,
    ),
    // A lender's bids are few beside their loans: counted on their index.
    loanBids: currencyPage(
      db,
      loanBidOf,
      `${selectFrom('loanBid')} WHERE user_id = $1 AND currency = $2
       ORDER BY id DESC LIMIT $3 OFFSET $4`,
      'SELECT count(*) AS count FROM loan_bids WHERE user_id = $1 AND currency = $2',
    ),
    loanBid: (id) =>
      db.read(async (tx) => {
        const [row] = await rowsOf(tx, `${selectFrom('loanBid')} WHERE id = $1`, [bigint(id)]);
        return row && loanBidOf(row);
      }),
    loan: (userId, id) =>
      db.read(async (tx) => {
        const [row] = await rowsOf(tx, `${selectFrom('loan')} WHERE id = $2 AND ${partyTo}`, [
          userId,
          bigint(id),
        ]);
        return row && loanOf(row);
      }),
  };
}
