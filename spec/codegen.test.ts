import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type OpenApiDocument, operationsOf } from '@exchange-kit/contract/spec-reader';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkAllOfSiblings } from './scripts/all-of-siblings.js';
import { closedObjects } from './scripts/closed-objects.js';
import { bundleApi } from './scripts/codegen.js';
import { discriminatedUnions } from './scripts/discriminated-unions.js';

interface MediaType {
  example?: unknown;
}
interface Operation {
  operationId: string;
  'x-source'?: string;
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
type Document = {
  paths?: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

const config = parse(await readFile(new URL('./redocly.yaml', import.meta.url), 'utf8')) as {
  apis: Record<string, { 'x-codegen': { schemas?: string } }>;
};
const apis = Object.keys(config.apis);
const apisWithSchemas = apis.filter((api) => config.apis[api]?.['x-codegen'].schemas);
const documents: Record<string, Document> = {};

beforeAll(async () => {
  for (const api of apis) documents[api] = (await bundleApi(api)) as Document;
});

const operationsIn = (document: Document) =>
  operationsOf(document as unknown as OpenApiDocument).map(({ path, method, operation }) => ({
    path,
    method,
    operation: operation as unknown as Operation,
  }));

/** One line per operation and schema: what a reviewer reads when the spec changes. */
function surface(document: Document): string {
  const operations = operationsIn(document).map(
    ({ path, method, operation }) =>
      `${method} ${path}  ${operation.operationId}  (${operation['x-source']})  -> ${Object.keys(operation.responses).join(' ')}`,
  );
  return [...operations, '', ...Object.keys(document.components.schemas).sort()].join('\n');
}

const pascal = (id: string) => id[0]?.toUpperCase() + id.slice(1);

describe.each(apis)('%s codegen', (api) => {
  it('has a reviewed surface (a spec change reads as a diff here)', async () => {
    await expect(`${surface(documents[api] as Document)}\n`).toMatchFileSnapshot(
      `./__snapshots__/${api}.surface.txt`,
    );
  });
});

describe.each(apisWithSchemas)('%s runtime schemas', (api) => {
  it('generates runtime schemas that accept every documented success example', async () => {
    const file = resolve(import.meta.dirname, config.apis[api]?.['x-codegen'].schemas ?? '');
    const schemas = (await import(file)) as Record<
      string,
      { safeParse(v: unknown): { success: boolean; error?: unknown } }
    >;
    let checked = 0;
    for (const { operation } of operationsIn(documents[api] as Document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const example = response.content?.['application/json']?.example;
        if (!status.startsWith('2') || example === undefined) continue;
        const schema = schemas[`z${pascal(operation.operationId)}Response`];
        expect(schema, `z${pascal(operation.operationId)}Response`).toBeDefined();
        const result = schema?.safeParse(example);
        expect(result?.error, `${operation.operationId} ${status}`).toBeUndefined();
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });
});

describe('a oneOf with a discriminator', () => {
  it('is generated as a discriminated union, so a 422 names the field an order type needs', async () => {
    const file = resolve(import.meta.dirname, config.apis.exchange?.['x-codegen'].schemas ?? '');
    const { zOrderCreate, zCreateOrderBody } = (await import(file)) as Record<
      string,
      { safeParse(v: unknown): { success: boolean; error?: { issues: unknown[] } } }
    >;
    const order = { product_id: 1, side: 'buy', quantity: '0.01' };
    const issues = (value: unknown) => zOrderCreate?.safeParse(value).error?.issues;
    expect(issues({ ...order, order_type: 'limit' })).toEqual([
      expect.objectContaining({ code: 'invalid_type', path: ['price'] }),
    ]);
    expect(issues({ ...order, order_type: 'trailing_stop', trailing_stop_value: '1' })).toEqual([
      expect.objectContaining({ code: 'invalid_value', path: ['trailing_stop_type'] }),
    ]);
    expect(issues({ ...order, order_type: 'limitt' })).toEqual([
      expect.objectContaining({
        path: ['order_type'],
        options: [
          'limit',
          'limit_post_only',
          'market',
          'market_with_range',
          'stop',
          'trailing_stop',
        ],
      }),
    ]);
    expect(issues({ ...order, order_type: 'market' })).toBeUndefined();
    const examples = (
      documents.exchange as unknown as {
        paths: Record<
          string,
          {
            post?: {
              requestBody: {
                content: Record<string, { examples: Record<string, { value: unknown }> }>;
              };
            };
          }
        >;
      }
    ).paths['/orders']?.post?.requestBody.content['application/json']?.examples;
    for (const [name, { value }] of Object.entries(examples ?? {})) {
      expect(zCreateOrderBody?.safeParse(value).error, name).toBeUndefined();
    }
  });

  it('stops codegen when a member is not built the way the rewrite knows', () => {
    const document = {
      components: {
        schemas: {
          Either: {
            oneOf: [{ $ref: '#/components/schemas/A' }],
            discriminator: { propertyName: 'kind' },
          },
          A: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object' }] },
        },
      },
    };
    const code = 'export const zA = z.union([zBase, z.object({})]);\n';
    expect(() => discriminatedUnions(code, document)).toThrow(
      'zA is not generated as an intersection with zBase',
    );
  });
});

/** Where `schema` is closed: itself (`[]`) and each closed object among its properties. */
function closedPaths(schema: unknown, path: string[] = []): string[][] {
  const { additionalProperties, properties } = schema as {
    additionalProperties?: unknown;
    properties?: Record<string, unknown>;
  };
  return [
    ...(additionalProperties === false ? [path] : []),
    ...Object.entries(properties ?? {}).flatMap(([key, inner]) =>
      closedPaths(inner, [...path, key]),
    ),
  ];
}

describe('a narrowing of an allOf', () => {
  it('is generated when it is a member of the allOf: a withdrawal amount over 32 characters is refused', async () => {
    const file = resolve(import.meta.dirname, config.apis.exchange?.['x-codegen'].schemas ?? '');
    const { zWithdrawalAmount } = (await import(file)) as Record<
      string,
      { safeParse(v: unknown): { success: boolean } }
    >;
    expect(zWithdrawalAmount?.safeParse(`0.${'0'.repeat(29)}1`).success).toBe(true);
    expect(zWithdrawalAmount?.safeParse(`0.${'0'.repeat(30)}1`).success).toBe(false);
  });

  it('stops codegen when it stands beside the allOf, where the generator drops it', () => {
    const document = {
      components: { schemas: { Short: { allOf: [{ $ref: '#/x' }], maxLength: 32 } } },
    };
    expect(() => checkAllOfSiblings(document, 'exchange')).toThrow(
      '#/components/schemas/Short maxLength',
    );
  });
});

describe('a closed object (additionalProperties: false)', () => {
  it('refuses a key it does not take, as the spec says, for every closed schema', async () => {
    const checked: string[] = [];
    for (const api of apisWithSchemas) {
      const file = resolve(import.meta.dirname, config.apis[api]?.['x-codegen'].schemas ?? '');
      const module = (await import(file)) as Record<
        string,
        { safeParse(v: unknown): { error?: { issues: Array<{ code: string }> } } }
      >;
      const schemas = documents[api]?.components.schemas ?? {};
      for (const [name, schema] of Object.entries(schemas)) {
        for (const path of closedPaths(schema)) {
          // The unknown key, at the closed object's place: `{"trade": {"not_a_field": 1}}`.
          const value = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), {
            not_a_field: 1,
          });
          const issues = module[`z${name}`]?.safeParse(value).error?.issues ?? [];
          const named = [name, ...path].join('.');
          expect(
            issues.map((issue) => issue.code),
            named,
          ).toContain('unrecognized_keys');
          checked.push(named);
        }
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining(['CancelAllFilters', 'TradeUpdate.trade', 'LoanUpdate.loan']),
    );
  });

  it('stops codegen when a closed schema is not generated as a plain object', () => {
    const document = {
      components: { schemas: { Shut: { type: 'object', additionalProperties: false } } },
    };
    expect(() => closedObjects('export const zShut = z.looseObject({});\n', document)).toThrow(
      'Shut is closed (additionalProperties: false) but not written as export const zShut = z.object(',
    );
  });
});
