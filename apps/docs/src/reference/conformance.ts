import {
  type ConformanceRequirement,
  catalog,
  profiles,
  requirementAnchor,
} from '@exchange-kit/conformance';
import { cell, operationLink, operations } from './openapi.js';

const kinds: Record<ConformanceRequirement['kind'], string> = {
  'state-table': 'State-table rows',
  value: 'Values of fields',
  'cancel-all-filter': 'cancel_all filters',
  'list-filter': 'List filters',
  response: 'Responses against the spec',
  auth: 'Authentication attacks',
  input: 'Bad input',
  model: 'Model-based sequences',
  events: 'Websocket events',
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
    // Each statement about values quotes the sentence of the description it makes checkable.
    // The quote shares the origin's cell, so the table keeps the six columns of the others and
    // fits the page: its placeholders and field lists run long without a space to wrap at.
    const quoted = kind === 'value';
    out.push(
      `## ${title}`,
      '',
      ...(quoted
        ? [
            'Every statement about a value in the interface description (MUST) and in the conventions (SHOULD), checked on every successful answer of its operations. The last column names the statement and quotes the sentence covered.',
            '',
          ]
        : []),
      `| Requirement | Level | Profiles | Operations | What a conforming server does | ${quoted ? 'Origin and sentence covered' : 'Origin'} |`,
      '|---|---|---|---|---|---|',
    );
    for (const r of inKind) {
      const opLinks = r.operations.map((id) => {
        const op = ops.find((o) => o.operationId === id);
        return op ? `[\`${id}\`](${operationLink(op)})` : `\`${id}\``;
      });
      const origin = quoted
        ? `${cell(r.origin)}: <q class="x-covered">${cell(r.sentence ?? '')}</q>`
        : cell(r.origin);
      out.push(
        `| <a id="${requirementAnchor(r.id)}"></a>\`${r.id}\` | ${r.level} | ${r.profiles.join(', ')} | ${opLinks.join(', ')} | ${cell(r.summary)} | ${origin} |`,
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
