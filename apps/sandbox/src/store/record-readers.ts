import type { Asset, Price } from '../state/partner-state.js';
import { type Account, D, type Fill, type Order, type Position } from '../state/records.js';
import type { Records } from '../state/sandbox-state.js';
import type { Queryable } from './queryable.js';
import { type StoredTable, selectFrom, tables } from './sandbox-tables.js';
import type { ColumnType, Table } from './table.js';

// Stored rows read back into the records memory holds, by each table's column list
// (`sandbox-tables.ts`): a query's rows for a few picked by key, COPY text for many.

type Stored = string | number | boolean | null;

/** A value of COPY's text format as the row readers expect it: numeric stays a string. */
function fromCopy(field: string, type: ColumnType): Stored | object {
  if (field === '\\N') return null;
  if (type === 'bigint' || type === 'integer') return Number(field);
  if (type === 'boolean') return field === 't';
  if (type === 'numeric' || type === 'digits') return field;
  const text = field.includes('\\')
    ? field.replace(/\\(.)/g, (_, char: string) => copyEscapes[char] ?? char)
    : ownCopy(field);
  return type === 'jsonb' ? (JSON.parse(text) as object) : text;
}
/**
 * The text of a field as a string of its own. V8 cuts a long substring as a view into the
 * string it came from, so a stored id would keep its line of COPY text alive for as long as
 * the row is held: about 100 bytes more for every order in memory.
 */
const ownCopy = (field: string) => (field.length < 13 ? field : `${field} `.slice(0, -1));

const copyEscapes: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

type Read = Stored | object;

const rowsSelect = (table: StoredTable, orderBy: string | null, filter?: RowFilter) =>
  `${selectFrom(table)}${filter ? ` WHERE ${filter.where}` : ''}${
    orderBy === null ? '' : ` ORDER BY ${orderBy}`
  }`;

/**
 * Which rows to read: with `params`, a query's (for a few rows picked by key); without, a
 * condition of the reader's own constants, read through COPY, as whole tables are: PGlite
 * decodes a query's rows one value at a time, several times slower for the thousands a start
 * reads.
 */
export interface RowFilter {
  where: string;
  params?: unknown[];
}

/** The record each table is read back into: an account's count of entries is kept elsewhere. */
type TableRecords = Records & {
  assets: Asset;
  prices: Price;
  orders: Order;
  fills: Fill;
  positions: Position;
  accounts: Omit<Account, 'entries'>;
};

/** Reads a stored decimal: `sharedDecimals` (`shared-decimals.ts`) shares equal ones. */
type DecimalReader = (stored: unknown) => D;

const newDecimal: DecimalReader = (stored) => new D(String(stored));

/** The expression that reads stored `value` into its field, by the column's type. */
const readExpression: Record<ColumnType, (value: string) => string> = {
  bigint: (value) => `${value} == null ? null : Number(${value})`,
  integer: (value) => `${value} == null ? null : Number(${value})`,
  numeric: (value) => `${value} == null ? null : decimal(${value})`,
  digits: (value) => `${value} == null ? null : String(${value})`,
  text: (value) => `${value} ?? null`,
  uuid: (value) => `${value} ?? null`,
  boolean: (value) => `${value} ?? null`,
  jsonb: (value) => `${value} ?? null`,
};

/**
 * Reads a row of `table` (as `selectFrom` selects it) back into the record it was written
 * from: each column into its field by its type, and what columns written from a function
 * hold by the table's `readBack`. The reader is compiled from the column list into one
 * object literal: a start reads every open order through it, and a record built field by
 * field under names known only at run time took five times as long.
 */
export function recordReader<Name extends keyof TableRecords>(
  table: Name,
  decimal: DecimalReader = newDecimal,
): (row: Record<string, unknown>) => TableRecords[Name] {
  return compiledRecordReader(table, decimal, 'row');
}

/**
 * Reads a line of `table`'s COPY text, cut at its tabs, straight into its record, as
 * `recordReader` reads a row: a start reads every open order and position this way, and a
 * row keyed by column between the two was as much garbage again as the records themselves.
 */
function copyRecordReader<Name extends keyof TableRecords>(
  table: Name,
  decimal: DecimalReader = newDecimal,
): (fields: string[]) => TableRecords[Name] {
  return compiledRecordReader(table, decimal, 'copy');
}

/** Where a compiled reader finds a column's stored value: a row keyed by column, or COPY's fields. */
type RowForm = 'row' | 'copy';

function compiledRecordReader<Name extends keyof TableRecords>(
  table: Name,
  decimal: DecimalReader,
  form: RowForm,
  // biome-ignore lint/suspicious/noExplicitAny: a row or a line's fields, by `form`
): (row: any) => TableRecords[Name] {
  const { name, columns, readBack } = tables[table] as Table<never>;
  const at = new Map(columns.map(([column, type], n) => [column, { n, type }]));
  const stored =
    form === 'row'
      ? (row: Record<string, unknown>, column: string) => row[column]
      : (fields: string[], column: string) => {
          const found = at.get(column);
          return found ? fromCopy(fields[found.n] ?? '\\N', found.type) : null;
        };
  // What `readBack` asks for, a column at a time, by the same expressions: compiled only for
  // a table that has one.
  const readColumn = new Map(
    (readBack ? columns : []).map(([column, type]) => [
      column,
      new Function('decimal', 'value', `return ${readExpression[type]('value')};`) as (
        decimal: DecimalReader,
        value: unknown,
      ) => unknown,
    ]),
  );
  // biome-ignore lint/suspicious/noExplicitAny: a row or a line's fields, by `form`
  const read = (row: any, column: string) =>
    readColumn.get(column)?.(decimal, stored(row, column)) ?? null;
  // Every name here is one of the column list's own, never a caller's. The fields come in the
  // order of the columns, those read back where their first column stands, so a record read
  // has the shape of one the rules made.
  const values: string[] = [];
  const literal: string[] = [];
  let backFields: string[] | undefined;
  for (const [n, [column, type, source]] of columns.entries()) {
    if (typeof source === 'string') {
      const value =
        form === 'row'
          ? `row[${JSON.stringify(column)}]`
          : `fromCopy(row[${n}] ?? missing, ${JSON.stringify(type)})`;
      values.push(`const v${n} = ${value};`);
      literal.push(`${JSON.stringify(source)}: ${readExpression[type](`v${n}`)}`);
    } else if (!readBack) {
      throw new Error(`${name}.${column} has no way back to its record`);
    } else if (!backFields) {
      backFields = Object.keys(readBack(() => null));
      literal.push(
        ...backFields.map((field) => `${JSON.stringify(field)}: back[${JSON.stringify(field)}]`),
      );
    }
  }
  const back = backFields ? 'const back = readBack((column) => read(row, column));' : '';
  return new Function(
    'decimal',
    'readBack',
    'read',
    'fromCopy',
    'missing',
    `return (row) => { ${values.join(' ')} ${back} return { ${literal.join(', ')} }; };`,
  )(decimal, readBack, read, fromCopy, '\\N');
}

/**
 * Every row of `table` (or those `filter` picks) as memory holds the record, in `orderBy`
 * order (`null`: the store's own, where no reader needs one, saving the sort).
 */
export async function readRecords<Name extends keyof TableRecords>(
  db: Queryable,
  table: Name,
  orderBy: string | null = 'id',
  options: { filter?: RowFilter; decimal?: DecimalReader } = {},
): Promise<TableRecords[Name][]> {
  const { filter, decimal } = options;
  const select = rowsSelect(table, orderBy, filter);
  // A few rows picked by key: a query with parameters, which COPY does not take.
  if (filter?.params) {
    const { rows } = await db.query<Record<string, Read>>(select, filter.params);
    return rows.map(recordReader(table, decimal));
  }
  return readSelectRecords(db, table, select, decimal);
}

/**
 * The rows of `table` that `select` picks (its columns as `selectFrom` lists them), as records.
 * Read with COPY where the store has it: a query's rows cost PGlite several times what the
 * same rows as COPY text do, which a store of a few hundred thousand rows feels at every start.
 */
export async function readSelectRecords<Name extends keyof TableRecords>(
  db: Queryable,
  table: Name,
  select: string,
  decimal?: DecimalReader,
): Promise<TableRecords[Name][]> {
  if (!db.copyOut) {
    return (await db.query<Record<string, Read>>(select)).rows.map(recordReader(table, decimal));
  }
  const recordOf = copyRecordReader(table, decimal);
  const text = await db.copyOut(select);
  const records: TableRecords[Name][] = [];
  // Each line's fields cut from the text where they stand, into one array the reader is done
  // with before the next line: split into lines, then each line into an array of its own,
  // cutting took longer than reading the records, and left as much garbage.
  const last = (tables[table] as Table<never>).columns.length - 1;
  const fields: string[] = new Array(last + 1);
  for (let at = 0; at < text.length; ) {
    for (let n = 0; n <= last; n++) {
      const found = text.indexOf(n === last ? '\n' : '\t', at);
      // COPY ends every line with its newline; text cut short ends the line where it stops.
      const end = found === -1 ? text.length : found;
      fields[n] = text.slice(at, end);
      at = end + 1;
    }
    records.push(recordOf(fields));
  }
  return records;
}
