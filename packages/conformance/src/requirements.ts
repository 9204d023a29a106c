import stateTables from './generated/state-tables.json' with { type: 'json' };

export type Level = 'MUST' | 'SHOULD';

/** One row of spec/state-tables.yaml: what a server must do, traceable to the description. */
export interface Requirement {
  id: string;
  level: Level;
  /** Key of the table in `tables` the row comes from. */
  table: string;
  /** 1-based position of the row in that table of the interface description. */
  row: number;
  /** Set when the requirement comes from the sentence under the table rather than a row. */
  note?: string;
  source: 'described' | 'convention';
  operations: string[];
  /** States the resource is in before the trigger; empty when it does not exist yet. */
  given?: string[];
  trigger: string;
  condition: string;
  expect: { status: number; next?: string; also?: string };
}

export interface StateTable {
  title: string;
  section: string;
  states?: { api: 'exchange' | 'partner'; schema: string };
}

interface StateTablesFile {
  version: number;
  tables: Record<string, StateTable>;
  requirements: Requirement[];
}

const file = stateTables as StateTablesFile;

/** Every requirement the suite checks, in the order of the description. */
export const requirements: readonly Requirement[] = file.requirements;

/** The tables the requirements come from, keyed as in `Requirement.table`. */
export const tables: Readonly<Record<string, StateTable>> = file.tables;

/** Where a requirement comes from, for reports: "Order, row 1" or "Order (note under the table)". */
export function describeOrigin(requirement: Requirement): string {
  const title = tables[requirement.table]?.title ?? requirement.table;
  return requirement.note ? `${title} (note under the table)` : `${title}, row ${requirement.row}`;
}
