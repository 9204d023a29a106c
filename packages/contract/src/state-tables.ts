import { requirements as rows, tables, version } from './generated/state-tables.js';

/** spec/state-tables.yaml: its tables (with each state's flags) and its requirements. */
export const stateTables = { version, tables, requirements: rows };

type Tables = typeof tables;

type Row = (typeof rows)[number];
type KeysOf<Union> = Union extends unknown ? keyof Union : never;
type ValueOf<Union, Key extends PropertyKey> = Union extends unknown
  ? Key extends keyof Union
    ? Union[Key]
    : undefined
  : never;
/** One object type for a union of row types, where a part only some rows have is optional. */
type Merged<Union> = { readonly [Key in keyof Union]: ValueOf<Union, Key> } & {
  readonly [Key in Exclude<KeysOf<Union>, keyof Union>]?: Exclude<ValueOf<Union, Key>, undefined>;
};

/** A requirement of the state tables: one row, or one sentence under a table. */
export type Requirement = Omit<Merged<Row>, 'expect'> & { readonly expect: Merged<Row['expect']> };
export type RequirementId = Row['id'];
export type StateTable = Tables[keyof Tables];
/** A table whose rows move something through states. */
export type StateTableName = {
  [Name in keyof Tables]: Tables[Name] extends { states: object } ? Name : never;
}[keyof Tables];
export type StateOf<Table extends StateTableName> = keyof Tables[Table]['states']['flags'] & string;
/** What code may need to know of a state: `open`, `polled` or `terminal` (see the YAML). */
export type StateFlag = {
  [Name in StateTableName]: Tables[Name]['states']['flags'][keyof Tables[Name]['states']['flags']];
}[StateTableName][number];

/** Every requirement, in the order of the description. */
export const requirements: readonly Requirement[] = rows;

/** The requirement with this id; throws on an id the tables lack. */
export function requirement(id: RequirementId): Requirement {
  const found = requirements.find((row) => row.id === id);
  if (!found) throw new Error(`state-tables.yaml has no requirement ${id}`);
  return found;
}

/** Whether `state` of `table` has `flag`: false for a state the table does not know. */
export function hasFlag<Table extends StateTableName>(
  table: Table,
  state: string,
  flag: StateFlag,
): boolean {
  const flags = tables[table].states.flags as Record<string, readonly string[]>;
  return flags[state]?.includes(flag) ?? false;
}

/** The states of `table` that have `flag`. */
export function statesWith<Table extends StateTableName>(
  table: Table,
  flag: StateFlag,
): StateOf<Table>[] {
  const flags = tables[table].states.flags as Record<string, readonly string[]>;
  return Object.keys(flags).filter((state) => flags[state]?.includes(flag)) as StateOf<Table>[];
}
