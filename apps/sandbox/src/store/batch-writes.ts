import type { Changes } from '../state/journal.js';
import { getOrCreate } from '../state/lists.js';
import { ownerKindOrder, type RecordKind, recordKindOrder } from '../state/sandbox-state.js';
import { countsMoved, countTables, writerSetting } from './counts-kept.js';
import {
  accounts,
  fills,
  nonces,
  orders,
  ownFills,
  positions,
  recordTables,
  sqlType,
} from './sandbox-tables.js';
import { type Table, textLiteral, type Value } from './table.js';

// A batch of changes as the SQL that stores it: one prepared insert per table, its rows
// passed as one array per column of the table's column list (`sandbox-tables.ts`).

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** Every batch is the sandbox's own: the store's triggers count and place another writer's. */
const writerSql = `SET LOCAL ${writerSetting} = 'sandbox'`;

const statementName = (table: Table<never>) => `exchange_write_${table.name}`;

/**
 * Each table's write as a prepared statement taking one array per column: parsed and
 * planned once per connection, where a statement of literals costs that at every batch.
 */
export const preparedWrites: Record<string, string> = Object.fromEntries(
  [
    orders,
    accounts,
    fills,
    ownFills,
    positions,
    nonces,
    ...Object.values(recordTables),
    ...countTables,
  ].map((table) => {
    const t = table as Table<never>;
    const parameters = t.columns.map(([, type]) => `${sqlType(type)}[]`).join(', ');
    const columns = t.columns.map(([column]) => column).join(', ');
    const arrays = t.columns.map((_, n) => `$${n + 1}`).join(', ');
    return [
      statementName(t),
      `PREPARE ${statementName(t)}(${parameters}) AS
       INSERT INTO ${t.name} (${columns}) SELECT * FROM unnest(${arrays}) ${t.onConflict}`,
    ];
  }),
);

/** A Postgres array literal element; NUL cannot be stored, and calls refuse it earlier. */
function element(value: Value): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`Not an integer: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : value.toFixed();
  if (text.includes('\u0000')) throw new Error('NUL in a stored string');
  // Tested before replaced: a batch has thousands of strings, nearly none with either.
  return needsEscape.test(text) ? `"${text.replace(escaped, '\\$&')}"` : `"${text}"`;
}

const needsEscape = /["\\]/;
const escaped = /["\\]/g;

/** A decimal's digits need no quotes in an array literal. */
function decimalElement(value: Value): string {
  return value !== null && typeof value === 'object' ? value.toFixed() : element(value);
}

/**
 * The arguments of `table`'s prepared write for `rows`: one array literal per column. Compiled
 * from the column list into one pass over the rows, as `recordReader` is: a closure per column
 * reading its field by a key it held went through every shape of row, and a margin fill's
 * batch has a thousand cells.
 */
function argumentsWriter<Row>(table: Table<Row>): (rows: Row[]) => string {
  const cells = table.columns.map(([, type, source], n) => {
    const elementOf = type === 'numeric' ? 'decimal' : 'element';
    // Every field name here is one of the column list's own, never a caller's.
    const value =
      typeof source === 'function'
        ? `sources[${n}](row)`
        : type === 'jsonb'
          ? `json(row[${JSON.stringify(source)}])`
          : `row[${JSON.stringify(source)}]`;
    return `c${n} += comma + ${elementOf}(${value});`;
  });
  const columns = table.columns.map((_, n) => `c${n}`);
  const body = `return (rows) => {
    let ${columns.map((c) => `${c} = '{'`).join(', ')};
    for (let n = 0; n < rows.length; n++) {
      const row = rows[n];
      const comma = n === 0 ? '' : ',';
      ${cells.join('\n      ')}
    }
    return ${columns.map((c) => `literal(${c} + '}')`).join(" + ', ' + ")};
  };`;
  const sources = table.columns.map(([, , source]) => source);
  return new Function('sources', 'element', 'decimal', 'json', 'literal', body)(
    sources,
    element,
    decimalElement,
    json,
    textLiteral,
  ) as (rows: Row[]) => string;
}

const argumentsWriters = new Map<Table<never>, (rows: never[]) => string>();

function write<Row>(table: Table<Row>, rows: Row[]): string {
  const key = table as Table<never>;
  const writer = getOrCreate(argumentsWriters, key, () => argumentsWriter(key));
  return `EXECUTE ${statementName(key)}(${writer(rows as never[])})`;
}

/**
 * The rows of one batch as one statement per table, children after the rows they name, for
 * one transaction, and the statements of `preparedWrites` they run: only those, so a store
 * seeded before a table was added (as tests of its migration do) takes the writes it has.
 */
export function changesSql(changes: Changes): { sql: string; prepared: Record<string, string> } {
  const statements: string[] = [writerSql];
  const byKind = new Map<RecordKind, object[]>();
  for (const { kind, row } of changes.records.values()) {
    getOrCreate(byKind, kind, (): object[] => []).push(row);
  }
  const writeRecords = (kinds: readonly RecordKind[]) => {
    for (const kind of kinds) {
      const rows = byKind.get(kind);
      if (rows) statements.push(write(recordTables[kind] as Table<never>, rows as never[]));
    }
  };
  writeRecords(ownerKindOrder);
  if (changes.orders.size > 0) statements.push(write(orders, [...changes.orders.values()]));
  if (changes.accounts.size > 0) statements.push(write(accounts, [...changes.accounts.values()]));
  if (changes.fills.length > 0) statements.push(write(fills, changes.fills));
  if (changes.ownFills.length > 0) statements.push(write(ownFills, changes.ownFills));
  // After the fills: a position's id is the fill that opened it.
  if (changes.positions.size > 0) {
    statements.push(write(positions, [...changes.positions.values()]));
  }
  writeRecords(recordKindOrder);
  for (const [table, rows] of countsMoved(changes)) statements.push(write(table, rows as never[]));
  if (changes.nonces.size > 0) {
    statements.push(
      write(
        nonces,
        [...changes.nonces].map(([scope, value]) => ({ scope, value })),
      ),
    );
  }
  const prepared: Record<string, string> = {};
  for (const statement of statements) {
    const name = /^EXECUTE (\w+)\(/.exec(statement)?.[1];
    if (name !== undefined) prepared[name] = preparedWrites[name] as string;
  }
  return { sql: statements.join(';\n'), prepared };
}
