import type { Position } from '../state/exchange-state.js';
import type { HeldTrade, HistoryReads, TradeFilter } from '../state/history.js';
import type { Database } from './database.js';
import {
  bigint,
  countOf,
  rowsOf,
  unstorable,
  userRowsWhere,
  type Where,
} from './history-queries.js';
import type { Queryable } from './queryable.js';
import { recordReader, selectFrom } from './sandbox-rows.js';

const positionOf = recordReader('positions');
const loanOf = recordReader('loan');

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

/**
 * The reads of trades and loans from the store, which holds every position and loan, open or
 * not; memory holds only the open positions and their loans (`loadExchangeState`).
 */
export function tradeHistory(
  db: Database,
): Pick<HistoryReads, 'trades' | 'trade' | 'loans' | 'loan'> {
  return {
    trades: async (userId, filter, offset, limit) => {
      if (Object.values(filter).some(unstorable)) return { rows: [], total: 0 };
      return db.read(async (tx) => {
        const { where, params } = tradesWhere(userId, filter);
        const n = params.length;
        const rows = await rowsOf(
          tx,
          `${selectFrom('positions')} WHERE ${where}
           ORDER BY created_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
          [...params, limit, bigint(offset)],
        );
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
    loans: async (userId, currency, offset, limit) => {
      if (unstorable(currency)) return { rows: [], total: 0 };
      return db.read(async (tx) => {
        // The page's ids from each party's index, newest first, as far as the page reaches:
        // one condition on either party would read every loan of both to sort them.
        const reach = `ORDER BY id DESC LIMIT $3::bigint + $4::bigint`;
        const rows = await rowsOf(
          tx,
          `${selectFrom('loan')} WHERE id IN (
             (SELECT id FROM loans WHERE lender_id = $1 AND currency = $2 ${reach})
             UNION
             (SELECT id FROM loans WHERE borrower_id = $1 AND currency = $2 ${reach}))
           ORDER BY id DESC LIMIT $3 OFFSET $4`,
          [userId, currency, limit, bigint(offset)],
        );
        const total = await countOf(
          tx,
          'SELECT coalesce(sum(loans), 0) AS count FROM loan_counts WHERE user_id = $1 AND currency = $2',
          [userId, currency],
        );
        return { rows: rows.map(loanOf), total };
      });
    },
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
