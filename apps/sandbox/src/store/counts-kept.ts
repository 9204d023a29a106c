import type { Changes } from '../state/journal.js';
import type { LedgerEntry, Loan } from '../state/records.js';
import { fillSeconds, secondsFolded } from './seconds-kept.js';
import type { Table } from './table.js';

// The counts of history the store keeps (migrations 0015, 0019, 0023), and its fills folded per
// second (0030), moved by the batch that writes the rows: its triggers count only another
// writer's (0021, 0025, 0030). A page counts its pages from them instead of reading every row.

/** Who writes a transaction's rows: the store's triggers count and place another's alone. */
export const writerSetting = 'exchange_sandbox.writer';

/** A count the store keeps: its table, and the fields of a row that say which count it moves. */
interface Count {
  table: Table<never>;
  fields: string[];
  count: string;
}

/** A count's table, its rows added to the stored ones. */
function counts(
  name: string,
  key: [column: string, type: 'bigint' | 'text', field: string][],
  count: string,
): Count {
  const columns = key.map(([column]) => column).join(', ');
  return {
    table: {
      name,
      columns: [...key, [count, 'bigint', count]],
      onConflict: `ON CONFLICT (${columns}) DO UPDATE SET ${count} = ${name}.${count} + EXCLUDED.${count}`,
    },
    fields: key.map(([, , field]) => field),
    count,
  };
}

const fillCounts = counts('product_fill_counts', [['product_id', 'bigint', 'productId']], 'fills');

const entryCounts = counts(
  'ledger_entry_counts',
  [
    ['user_id', 'bigint', 'userId'],
    ['currency', 'text', 'currency'],
    ['source_action', 'text', 'sourceAction'],
  ],
  'entries',
);

const orderCounts = counts(
  'order_counts',
  [
    ['user_id', 'bigint', 'userId'],
    ['status', 'text', 'status'],
    ['product_id', 'bigint', 'productId'],
    ['trading_type', 'text', 'tradingType'],
    ['funding_currency', 'text', 'fundingCurrency'],
  ],
  'orders',
);

const tradeCounts = counts(
  'trade_counts',
  [
    ['user_id', 'bigint', 'userId'],
    ['status', 'text', 'status'],
    ['side', 'text', 'side'],
    ['product_id', 'bigint', 'productId'],
    ['funding_currency', 'text', 'fundingCurrency'],
    ['trading_type', 'text', 'tradingType'],
  ],
  'trades',
);

const loanCounts = counts(
  'loan_counts',
  [
    ['user_id', 'bigint', 'userId'],
    ['currency', 'text', 'currency'],
  ],
  'loans',
);

/**
 * Every count the sandbox moves, and the fills it folds per second, for the statements written
 * ahead (`preparedWrites`).
 */
export const countTables = [
  ...[fillCounts, entryCounts, orderCounts, tradeCounts, loanCounts].map(({ table }) => table),
  fillSeconds as Table<never>,
];

type Fields = Record<string, unknown>;

/**
 * How far `count` moves: by one for each row of a kind now, back by one for each row the store
 * held as a kind before, one row per kind (a statement may move a count once).
 */
function moves(count: Count, rows: Iterable<[now: object, before: object | null]>): Fields[] {
  const { fields } = count;
  const keyOf = (row: Fields) => {
    let key = '';
    for (const field of fields) key += `${row[field]}\u0000`;
    return key;
  };
  const moved = new Map<string, { row: Fields; by: number }>();
  const move = (row: Fields, key: string, by: number) => {
    const known = moved.get(key);
    if (known) known.by += by;
    else moved.set(key, { row, by });
  };
  for (const [now, before] of rows as Iterable<[Fields, Fields | null]>) {
    const key = keyOf(now);
    if (before !== null) {
      const was = keyOf(before);
      if (was === key) continue;
      move(before, was, -1);
    }
    move(now, key, 1);
  }
  const written: Fields[] = [];
  for (const { row, by } of moved.values()) {
    if (by === 0) continue;
    const kind: Fields = { [count.count]: by };
    for (const field of fields) kind[field] = row[field];
    written.push(kind);
  }
  return written;
}

function* stored<Row extends { id: number }>(
  rows: Map<number, Row>,
  before: Map<number, Row | null>,
): Generator<[Row, Row | null]> {
  for (const [id, row] of rows) yield [row, before.get(id) ?? null];
}

function* added<Kind extends 'ledgerEntry' | 'loan'>(
  changes: Changes,
  kind: Kind,
): Generator<{ ledgerEntry: LedgerEntry; loan: Loan }[Kind]> {
  for (const [key, record] of changes.records) {
    if (record.kind === kind && changes.addedRecords.has(key)) {
      yield record.row as { ledgerEntry: LedgerEntry; loan: Loan }[Kind];
    }
  }
}

/** Each party of a loan once: a lender may lend to itself. */
function* loanParties(
  loans: Iterable<Loan>,
): Generator<[{ userId: number; currency: string }, null]> {
  for (const { lenderId, borrowerId, currency } of loans) {
    yield [{ userId: lenderId, currency }, null];
    if (borrowerId !== lenderId) yield [{ userId: borrowerId, currency }, null];
  }
}

/** Rows the store does not hold yet: nothing to move a count back from. */
function* fresh<Row>(rows: Iterable<Row>): Generator<[Row, null]> {
  for (const row of rows) yield [row, null];
}

/** The batch's moves of each count, and its fills per second, by table: none for nothing moved. */
export function countsMoved(changes: Changes): [Table<never>, object[]][] {
  const byTable: [Table<never>, object[]][] = [
    [fillCounts.table, moves(fillCounts, fresh(changes.fills))],
    [entryCounts.table, moves(entryCounts, fresh(added(changes, 'ledgerEntry')))],
    [orderCounts.table, moves(orderCounts, stored(changes.orders, changes.storedOrders))],
    [tradeCounts.table, moves(tradeCounts, stored(changes.positions, changes.storedPositions))],
    [loanCounts.table, moves(loanCounts, loanParties(added(changes, 'loan')))],
    [fillSeconds as Table<never>, secondsFolded(changes.fills)],
  ];
  return byTable.filter(([, rows]) => rows.length > 0);
}
