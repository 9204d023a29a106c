import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSchemas as loadExchangeSchemas } from './exchange.js';
import exchangeSpec from './generated/exchange.openapi.json' with { type: 'json' };
import * as exchangeRuntime from './generated/exchange.responses.js';
import partnerSpec from './generated/partner.openapi.json' with { type: 'json' };
import * as partnerRuntime from './generated/partner.responses.js';
import { loadSchemas as loadPartnerSchemas } from './partner.js';
import { type OpenApiDocument, operationsOf, resolveRef } from './spec-reader.js';

type Schema = {
  safeParse(value: unknown): { success: boolean; error?: { issues: unknown[] } };
};

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

/** Each operation's documented success examples, by the name of its response schema. */
function examplesOf(document: OpenApiDocument): [string, unknown][] {
  const examples: [string, unknown][] = [];
  for (const { operationId, operation } of operationsOf(document)) {
    const responses = operation.responses as Record<string, unknown>;
    for (const [status, reference] of Object.entries(responses)) {
      if (!status.startsWith('2')) continue;
      const response = resolveRef(document, reference) as {
        content?: Record<string, { example?: unknown }>;
      };
      const example = response.content?.['application/json']?.example;
      if (example !== undefined) examples.push([`z${pascal(operationId)}Response`, example]);
    }
  }
  return examples;
}

// What a server's bug may put anywhere in an answer.
const hostile = fc.oneof(
  fc.constantFrom(null, undefined, '', 'x', '1e5', '-0', '0.10', ' 1', 1e21, -1, 0.5, Number.NaN),
  fc.constantFrom(true, [], {}, [1], { a: 1 }, 'a'.repeat(300), 2 ** 53, '١٢٣'),
  fc.string(),
  fc.double(),
  fc.integer(),
);

/** Every path to a value inside `value`, the root included. */
function pathsIn(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const paths = [at];
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      paths.push(...pathsIn(child, [...at, Array.isArray(value) ? Number(key) : key]));
    }
  }
  return paths;
}

function replaced(value: unknown, path: (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  const [key, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  if (by === undefined && rest.length === 0) delete copy[key];
  else copy[key] = replaced(copy[key], rest, by);
  return copy;
}

describe.each([
  ['exchange', exchangeSpec, exchangeRuntime, loadExchangeSchemas],
  ['partner', partnerSpec, partnerRuntime, loadPartnerSchemas],
] as const)('the %s response schemas as clients load them on Node', (_, spec, runtime, load) => {
  const examples = examplesOf(spec as unknown as OpenApiDocument);

  it('are compiled, and the same object on every load', async () => {
    const schemas = await load();
    expect(await load()).toBe(schemas);
    expect(Object.keys(schemas).sort()).toEqual(Object.keys(runtime).sort());
    for (const name of Object.keys(runtime)) {
      expect((schemas as Record<string, unknown>)[name]).not.toBe(
        (runtime as Record<string, unknown>)[name],
      );
    }
  });

  it('answer every documented example, and any one value of it changed, as the schemas do', async () => {
    const schemas = (await load()) as unknown as Record<string, Schema>;
    const original = runtime as unknown as Record<string, Schema>;
    expect(examples.length).toBeGreaterThan(5);
    const cases = fc
      .constantFrom(...examples)
      .chain(([name, example]) =>
        fc
          .tuple(fc.constant(name), fc.constantFrom(...pathsIn(example)), hostile)
          .map(
            ([schemaName, path, value]) => [schemaName, replaced(example, path, value)] as const,
          ),
      );
    let refused = 0;
    fc.assert(
      fc.property(cases, ([name, value]) => {
        const fast = schemas[name]?.safeParse(value);
        const slow = original[name]?.safeParse(value);
        expect(fast?.success).toBe(slow?.success);
        expect(fast?.error?.issues).toEqual(slow?.error?.issues);
        if (!slow?.success) refused++;
      }),
      { numRuns: 2_000, seed: 15 },
    );
    for (const [name, example] of examples) {
      expect(schemas[name]?.safeParse(example).success, name).toBe(true);
    }
    // The changes reach the checks: most changed answers are refused.
    expect(refused).toBeGreaterThan(500);
  });
});
