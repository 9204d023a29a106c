import type { D } from '../state/records.js';

/** A column's value as memory holds it. */
export type Value = string | number | boolean | D | null;

/**
 * A column's SQL type and how memory holds its value: integers as numbers, `numeric` as a D,
 * `digits` as the decimal string it was given (Quick Exchange echoes quantities as sent), and
 * `jsonb` as the value JSON holds.
 */
export type ColumnType =
  | 'bigint'
  | 'integer'
  | 'numeric'
  | 'digits'
  | 'text'
  | 'uuid'
  | 'boolean'
  | 'jsonb';

/**
 * Where a column's value comes from: a field of the record, written as it is and read back
 * into it by the column's type, or a function of the record, written alone and read back by
 * its table's `readBack`.
 */
export type Source<Row> = (keyof Row & string) | ((row: Row) => Value);

/** How one table's rows are written and read: each column's type and where its value comes from. */
export interface Table<Row> {
  name: string;
  columns: [column: string, type: ColumnType, source: Source<Row>][];
  /** What happens to a row that is already there. */
  onConflict: string;
  /** The fields of a record that columns written from a function hold, read back from them. */
  readBack?: (column: (name: string) => unknown) => Partial<Row>;
}

/** `value` as an SQL string literal, for a condition built of the sandbox's own constants. */
export const textLiteral = (value: string): string =>
  value.includes("'") ? `'${value.replaceAll("'", "''")}'` : `'${value}'`;
