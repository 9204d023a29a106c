import { stateTables } from '@exchange-kit/contract/state-tables';
import { cell, operationLink, operations } from './openapi.js';

type Requirement = (typeof stateTables.requirements)[number];

/** Where the conformance page lists a requirement. */
export const conformanceLink = (id: string) => `/reference/conformance#${id.toLowerCase()}`;

/**
 * States, methods and fields (SETTLEMENT_METHOD_REQUIRED, intent_to_trade) as code: they are
 * names, and as code they may break anywhere, so a ten-column table fits its column.
 */
const names = (value: string) =>
  value.replace(/\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b/g, (name) => `\`${name}\``);

function row(requirement: Requirement): string {
  const given = 'given' in requirement ? requirement.given : undefined;
  const origin = 'note' in requirement ? `note: ${requirement.note}` : `row ${requirement.row}`;
  const ops = operations();
  const opLinks = requirement.operations.map((id) => {
    const op = ops.find((o) => o.operationId === id);
    if (!op) throw new Error(`${requirement.id} names the unknown operation ${id}`);
    return `[\`${id}\`](${operationLink(op)})`;
  });
  return `| ${[
    `[${requirement.id}](${conformanceLink(requirement.id)})`,
    requirement.level,
    origin,
    opLinks.join(', '),
    given === undefined ? '' : given.length === 0 ? '(none)' : names(given.join(', ')),
    names(requirement.trigger),
    names(requirement.condition),
    requirement.expect.status,
    'next' in requirement.expect ? names(requirement.expect.next ?? '') : '',
  ]
    .map((value) => cell(value))
    .join(' | ')} |`;
}

/** The state-tables page: one section per table, one line per requirement. */
export function renderStateTables(): string {
  const sections = Object.entries(stateTables.tables).map(([key, table]) => {
    const rows = stateTables.requirements.filter((r) => r.table === key).map(row);
    return [
      `## ${table.title}`,
      '',
      `From the interface description, section ${table.section}. Each requirement links to the conformance check that covers it.`,
      '',
      '| Requirement | Level | Origin | Operations | Given | Trigger | Condition | Status | Next |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
  });
  return [
    '---',
    'aside: false',
    '---',
    '',
    '# State tables',
    '',
    'Every row of the state and status tables of the interface description, as a requirement with a stable id (`spec/state-tables.yaml`). The sandbox implements them, the clients rely on them, and the conformance suite runs one scenario per requirement.',
    '',
    sections.join('\n\n'),
    '',
  ].join('\n');
}
