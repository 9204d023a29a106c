import type { HistoryReads } from '../state/history.js';
import type { Database } from './database.js';
import { bigint, countOf, pageOf, rowsOf, unstorable, userRowsWhere } from './history-queries.js';
import { recordReader } from './record-readers.js';
import { selectFrom } from './sandbox-tables.js';

const withdrawalOf = recordReader('withdrawal');
const depositOf = recordReader('deposit');

/**
 * The reads of withdrawals and deposits from the store, which holds every one; memory holds
 * only the withdrawals not yet ended, which still hold their amount reserved and may move
 * (`loadExchangeState`). Both lists are read on their user's index by id (migration 0009).
 */
export function fundingHistory(
  db: Pick<Database, 'read'>,
  deepOffset?: number,
): Pick<HistoryReads, 'withdrawals' | 'withdrawal' | 'deposits'> {
  return {
    withdrawals: async (userId, filter, offset, limit) => {
      if (Object.values(filter).some(unstorable)) return { rows: [], total: 0 };
      return db.read(async (tx) => {
        const picked = userRowsWhere(userId, [
          ['kind =', filter.kind],
          ['currency =', filter.currency],
          ['state =', filter.state],
        ]);
        const page = { offset, limit };
        const rows = await pageOf(tx, 'withdrawal', picked, 'ORDER BY id DESC', page, deepOffset);
        const count = `SELECT count(*) AS count FROM withdrawals WHERE ${picked.where}`;
        return { rows: rows.map(withdrawalOf), total: await countOf(tx, count, picked.params) };
      });
    },
    withdrawal: (id) =>
      db.read(async (tx) => {
        const [row] = await rowsOf(tx, `${selectFrom('withdrawal')} WHERE id = $1`, [bigint(id)]);
        return row && withdrawalOf(row);
      }),
    deposits: async (userId, currency, offset, limit) => {
      if (unstorable(currency)) return { rows: [], total: 0 };
      return db.read(async (tx) => {
        const picked = userRowsWhere(userId, [['currency =', currency]]);
        const page = { offset, limit };
        const rows = await pageOf(tx, 'deposit', picked, 'ORDER BY id DESC', page, deepOffset);
        const count = `SELECT count(*) AS count FROM deposits WHERE ${picked.where}`;
        return { rows: rows.map(depositOf), total: await countOf(tx, count, picked.params) };
      });
    },
  };
}
