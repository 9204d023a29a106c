import stateTables from '@exchange-kit/spec/state-tables.json' with { type: 'json' };

type Requirement = (typeof stateTables.requirements)[number];

const cell = (text: string | number | undefined) =>
  String(text ?? '')
    .replaceAll('|', '\\|')
    .replaceAll('\n', ' ');

function row(requirement: Requirement): string {
  const given = 'given' in requirement ? requirement.given : undefined;
  const origin = 'note' in requirement ? `note: ${requirement.note}` : `row ${requirement.row}`;
  return `| ${[
    requirement.id,
    requirement.level,
    origin,
    requirement.operations.map((op) => `\`${op}\``).join(', '),
    given === undefined ? '' : given.length === 0 ? '(none)' : given.join(', '),
    requirement.trigger,
    requirement.condition,
    requirement.expect.status,
    'next' in requirement.expect ? requirement.expect.next : '',
  ]
    .map(cell)
    .join(' | ')} |`;
}

/** The state-tables page: one section per table, one line per requirement. */
export function renderStateTables(): string {
  const sections = Object.entries(stateTables.tables).map(([key, table]) => {
    const rows = stateTables.requirements.filter((r) => r.table === key).map(row);
    return [
      `## ${table.title}`,
      '',
      `From the interface description, section ${table.section}.`,
      '',
      '| Requirement | Level | Origin | Operations | Given | Trigger | Condition | Status | Next |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
  });
  return `# State tables\n\n${sections.join('\n\n')}\n`;
}
