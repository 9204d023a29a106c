import { type ConformanceRequirement, catalog, profiles } from '@exchange-kit/conformance';
import { cell, operationLink, operations } from './openapi.js';

const kinds: Record<ConformanceRequirement['kind'], string> = {
  'state-table': 'State-table rows',
  'cancel-all-filter': 'cancel_all filters',
  response: 'Responses against the spec',
  auth: 'Authentication attacks',
  input: 'Bad input',
};

/** Every requirement the conformance suite gives a verdict on, each with an anchor by id. */
export function renderConformance(): string {
  const ops = operations();
  const out = [
    '---',
    'aside: false',
    '---',
    '',
    '# Conformance requirements',
    '',
    'Every requirement `exchange-conformance run` gives a verdict on, by id. `exchange-conformance list` prints the same list; the [server guide](/guide/server) shows how to run them.',
    '',
    '## Profiles',
    '',
    '| Profile | What it covers |',
    '|---|---|',
    ...Object.entries(profiles).map(
      ([name, description]) => `| \`${name}\` | ${cell(description)} |`,
    ),
    '',
  ];
  for (const [kind, title] of Object.entries(kinds)) {
    const inKind = catalog.filter((r) => r.kind === kind);
    if (inKind.length === 0) continue;
    out.push(
      `## ${title}`,
      '',
      '| Requirement | Level | Profiles | Operations | What a conforming server does | Origin |',
      '|---|---|---|---|---|---|',
    );
    for (const r of inKind) {
      const opLinks = r.operations.map((id) => {
        const op = ops.find((o) => o.operationId === id);
        return op ? `[\`${id}\`](${operationLink(op)})` : `\`${id}\``;
      });
      out.push(
        `| <a id="${r.id.toLowerCase()}"></a>\`${r.id}\` | ${r.level} | ${r.profiles.join(', ')} | ${opLinks.join(', ')} | ${cell(r.summary)} | ${cell(r.origin)} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

/** The requirements that exercise an operation. */
export function coverageOf(operationId: string) {
  return catalog
    .filter((r) => r.operations.includes(operationId))
    .map((r) => ({ id: r.id, level: r.level, summary: r.summary }));
}
