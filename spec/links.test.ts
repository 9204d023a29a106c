import { type OpenApiDocument, operationsOf, resolveRef } from '@exchange-kit/contract/spec-reader';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleApis } from './scripts/codegen.js';

type Json = Record<string, unknown>;

let specs: Record<string, OpenApiDocument>;

beforeAll(async () => {
  specs = (await bundleApis()) as Record<string, OpenApiDocument>;
});

/** Whether `pointer` can name a value of `schema`: each segment a property, an item or a branch's. */
function reaches(document: OpenApiDocument, schema: unknown, pointer: string[]): boolean {
  const resolved = resolveRef(document, schema as Json) as Json | undefined;
  if (!resolved) return false;
  if (pointer.length === 0) return true;
  const branches = [
    ...((resolved.oneOf as unknown[]) ?? []),
    ...((resolved.anyOf as unknown[]) ?? []),
    ...((resolved.allOf as unknown[]) ?? []),
  ];
  if (branches.some((branch) => reaches(document, branch, pointer))) return true;
  const [head, ...rest] = pointer as [string, ...string[]];
  const property = (resolved.properties as Json | undefined)?.[head];
  if (property) return reaches(document, property, rest);
  if (/^\d+$/.test(head) && resolved.items) return reaches(document, resolved.items, rest);
  return false;
}

interface Link {
  api: string;
  from: string;
  name: string;
  operationId: string;
  parameters: Json;
  requestBody: unknown;
  responseSchema: unknown;
}

function linksOf(api: string, document: OpenApiDocument): Link[] {
  const found: Link[] = [];
  for (const { operationId, operation } of operationsOf(document)) {
    for (const raw of Object.values((operation.responses as Json | undefined) ?? {})) {
      const response = resolveRef(document, raw as Json) as Json;
      const schema = Object.values((response.content as Json | undefined) ?? {}).map(
        (media) => (media as Json).schema,
      )[0];
      for (const [name, link] of Object.entries((response.links as Json | undefined) ?? {})) {
        const { operationId: target, parameters, requestBody } = link as Json;
        found.push({
          api,
          from: operationId,
          name,
          operationId: String(target),
          parameters: (parameters as Json | undefined) ?? {},
          requestBody,
          responseSchema: schema,
        });
      }
    }
  }
  return found;
}

/** The runtime expressions of a link value: strings starting with `$`, at any depth. */
const expressions = (value: unknown): string[] =>
  typeof value === 'string'
    ? value.startsWith('$')
      ? [value]
      : []
    : typeof value === 'object' && value !== null
      ? Object.values(value).flatMap(expressions)
      : [];

describe('links of the specs', () => {
  const all = () => Object.entries(specs).flatMap(([api, document]) => linksOf(api, document));

  it('chain the order id from create to get, edit and cancel, and the transaction id from intent_to_trade to the settlement calls and the status', () => {
    const targets = (from: string) =>
      all()
        .filter((link) => link.from === from)
        .map((link) => link.operationId);
    expect(targets('createOrder')).toEqual(
      expect.arrayContaining(['getOrder', 'editOrder', 'cancelOrder']),
    );
    expect(targets('intentToTrade')).toEqual(
      expect.arrayContaining([
        'getTransactionStatus',
        'setSettlementMethod',
        'setSettlementParameters',
      ]),
    );
  });

  it('name operations, parameters and request fields that exist, with values the response has', () => {
    const problems: string[] = [];
    for (const link of all()) {
      const document = specs[link.api] as OpenApiDocument;
      const where = `${link.from} → ${link.name}`;
      const target = operationsOf(document).find((op) => op.operationId === link.operationId);
      if (!target) {
        problems.push(`${where}: no operation ${link.operationId}`);
        continue;
      }
      for (const name of Object.keys(link.parameters)) {
        const bare = name.replace(/^(path|query|header|cookie)\./, '');
        if (!target.parameters.some((parameter) => parameter.name === bare))
          problems.push(`${where}: ${link.operationId} has no parameter ${bare}`);
      }
      if (link.requestBody !== undefined) {
        const media = (
          resolveRef(document, target.operation.requestBody as Json) as Json | undefined
        )?.content as Json | undefined;
        const schema = (media?.['application/json'] as Json | undefined)?.schema;
        for (const field of Object.keys((link.requestBody as Json) ?? {})) {
          if (!reaches(document, schema, [field]))
            problems.push(`${where}: the body of ${link.operationId} has no field ${field}`);
        }
      }
      for (const expression of expressions([link.parameters, link.requestBody])) {
        const match = /^\$response\.body#(\/.*)?$/.exec(expression);
        if (!match) {
          problems.push(`${where}: ${expression} is not a $response.body expression`);
          continue;
        }
        const pointer = (match[1] ?? '').split('/').slice(1);
        if (!reaches(document, link.responseSchema, pointer))
          problems.push(`${where}: the response of ${link.from} has nothing at ${match[1]}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
