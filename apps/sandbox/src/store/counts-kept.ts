import type { LedgerEntry, Loan, Order, Position } from '../state/exchange-state.js';
import type { Changes } from '../state/journal.js';
import type { Table } from './table.js';

// The counts of history the store keeps (migrations 0015, 0019, 0023), moved by the batch that
// writes the rows: its triggers count only another writer's (0021, 0025). A page counts its
// pages from them instead of reading every row.

/** Who writes a transaction's rows: the store's triggers count and place another's alone. */
export const writerSetting = 'exchange_sandbox.writer';

interface FillCount {
  productId: number;
  fills: number;
}

interface EntryCount {
  userId: number;
  currency: string;
  sourceAction: string;
  entries: number;
}

type OrderKind = Pick<Order, 'userId' | 'status' | 'productId' | 'tradingType' | 'fundingCurrency'>;
type TradeKind = Pick<
  Position,
  'userId' | 'status' | 'side' | 'productId' | 'fundingCurrency' | 'tradingType'
>;

interface LoanCount {
  userId: number;
  currency: string;
  loans: number;
}

/** A count's table, its rows added to the stored ones. */
function counts<Count>(
  name: string,
  key: [column: string, type: 'bigint' | 'text', field: keyof Count & string][],
  count: keyof Count & string,
): Table<Count> {
  const columns = key.map(([column]) => column).join(', ');
  return {
    name,
    columns: [...key, [count, 'bigint', count]],
    onConflict: `ON CONFLICT (${columns}) DO UPDATE SET ${count} = ${name}.${count} + EXCLUDED.${count}`,
  };
}

const fillCounts = counts<FillCount>(
  'product_fill_counts',
  [['product_id', 'bigint', 'productId']],
  'fills',
);

const entryCounts = counts<EntryCount>(
  'ledger_entry_counts',
  [
    ['user_id', 'bigint', 'userId'],
    ['currency', 'text', 'currency'],
    ['source_action', 'text', 'sourceAction'],
  ],
  'entries',
);

const orderCounts = counts<OrderKind & { orders: number }>(
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

const tradeCounts = counts<TradeKind & { trades: number }>(
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

const loanCounts = counts<LoanCount>(
  'loan_counts',
  [
    ['user_id', 'bigint', 'userId'],
    ['currency', 'text', 'currency'],
  ],
  'loans',
);

/** Every count the sandbox moves, for the statements written ahead (`preparedWrites`). */
export const countTables = [fillCounts, entryCounts, orderCounts, tradeCounts, loanCounts];

/**
 * How far each kind's count moves: by one for each row of that kind now, back by one for each
 * row the store held as that kind before, one row per kind (a statement may move a count once).
 */
function moves<Row, Kind extends object>(
  rows: Iterable<[now: Row, before: Row | null]>,
  kindOf: (row: Row) => Kind,
): { kind: Kind; moved: number }[] {
  const moved = new Map<string, { kind: Kind; moved: number }>();
  const move = (kind: Kind, key: string, by: number) => {
    const known = moved.get(key);
    if (known) known.moved += by;
    else moved.set(key, { kind, moved: by });
  };
  for (const [now, before] of rows) {
    const kind = kindOf(now);
    const key = keyOf(kind);
    if (before !== null) {
      const was = kindOf(before);
      const wasKey = keyOf(was);
      if (wasKey === key) continue;
      move(was, wasKey, -1);
    }
    move(kind, key, 1);
  }
  return [...moved.values()].filter((kept) => kept.moved !== 0);
}

const keyOf = (kind: object) => Object.values(kind).join('\u0000');

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

/** The batch's moves of each count, by its table: none for a count nothing moved. */
export function countsMoved(changes: Changes): [Table<never>, object[]][] {
  const byTable: [Table<never>, object[]][] = [
    [
      fillCounts as Table<never>,
      moves(
        changes.fills.map((fill) => [fill, null] as const),
        ({ productId }) => ({ productId }),
      ).map(({ kind, moved }) => ({ ...kind, fills: moved })),
    ],
    [
      entryCounts as Table<never>,
      moves(
        [...added(changes, 'ledgerEntry')].map((entry) => [entry, null] as const),
        ({ userId, currency, sourceAction }) => ({ userId, currency, sourceAction }),
      ).map(({ kind, moved }) => ({ ...kind, entries: moved })),
    ],
    [
      orderCounts as Table<never>,
      moves(
        stored(changes.orders, changes.storedOrders),
        ({ userId, status, productId, tradingType, fundingCurrency }) => ({
          userId,
          status,
          productId,
          tradingType,
          fundingCurrency,
        }),
      ).map(({ kind, moved }) => ({ ...kind, orders: moved })),
    ],
    [
      tradeCounts as Table<never>,
      moves(
        stored(changes.positions, changes.storedPositions),
        ({ userId, status, side, productId, fundingCurrency, tradingType }) => ({
          userId,
          status,
          side,
          productId,
          fundingCurrency,
          tradingType,
        }),
      ).map(({ kind, moved }) => ({ ...kind, trades: moved })),
    ],
    [
      loanCounts as Table<never>,
      moves(loanParties(added(changes, 'loan')), (party) => party).map(({ kind, moved }) => ({
        ...kind,
        loans: moved,
      })),
    ],
  ];
  return byTable.filter(([, rows]) => rows.length > 0);
}
