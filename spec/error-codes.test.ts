import { type OpenApiDocument, operationsOf, resolveRef } from '@exchange-kit/contract/spec-reader';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleApis } from './scripts/codegen.js';

type Json = Record<string, unknown>;

let specs: Record<string, OpenApiDocument>;

beforeAll(async () => {
  specs = (await bundleApis()) as Record<string, OpenApiDocument>;
});

/**
 * The codes a 422 answer's description names, written `(\`code\`)`. The typed clients narrow a
 * validation error by the operation's `x-error-codes` alone: a code the prose names and the
 * list leaves out is a field a caller's code cannot read without a cast.
 */
const namedCodes = (description: string) =>
  [...description.matchAll(/\(`([a-z_]+)`\)/g)].map((match) => match[1] as string);

describe('the error codes of each operation', () => {
  it('list every code its 422 answer names', () => {
    const missing: string[] = [];
    for (const [api, document] of Object.entries(specs)) {
      for (const { operationId, operation } of operationsOf(document)) {
        const responses = operation.responses as Json | undefined;
        const refused = resolveRef(document, responses?.['422'] as Json | undefined);
        const described = (refused?.description as string | undefined) ?? '';
        const listed = new Set(
          Object.values((operation['x-error-codes'] ?? {}) as Record<string, Json>).flatMap(
            (fields) => Object.values(fields).flat() as string[],
          ),
        );
        for (const code of namedCodes(described)) {
          if (!listed.has(code)) missing.push(`${api} ${operationId}: ${code}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
