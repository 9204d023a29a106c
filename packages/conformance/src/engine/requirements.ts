import {
  type Requirement,
  requirements,
  type StateTable,
  stateTables,
} from '@exchange-kit/contract/state-tables';

export type { Requirement, StateTable };
/** How binding a requirement is: MUST fails a run, SHOULD warns. */
export type Level = 'MUST' | 'SHOULD';

/** Every requirement the suite checks, in the order of the description. */
export { requirements };

/** The tables the requirements come from, keyed as in `Requirement.table`. */
export const tables: Readonly<Record<string, StateTable>> = stateTables.tables;

/** Where a requirement comes from, for reports: "Order, row 1" or "Order (note under the table)". */
export function describeOrigin(requirement: Requirement): string {
  const title = tables[requirement.table]?.title ?? requirement.table;
  return requirement.note ? `${title} (note under the table)` : `${title}, row ${requirement.row}`;
}
