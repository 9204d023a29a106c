import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { type Api, deref } from './spec.js';

type Row = Record<string, unknown>;

// Generated bodies stay small: a server's answer to a long array says little more than to a short one.
const maxArray = 3;
const maxFreeString = 24;
const maxDepth = 4;

/**
 * Request bodies a JSON Schema of the specs admits, as a fast-check arbitrary: `$ref`, `const`,
 * `enum`, `oneOf` / `anyOf`, typed objects (required and optional properties, maps through
 * `additionalProperties`), arrays, strings (`pattern`, `format` uuid and uri, lengths), numbers
 * and booleans. Keywords that relate fields (`if` / `then`) are left to a validator: filter
 * with the schema's own. Shrinking goes towards fewer optional fields, shorter strings and the
 * first enum value.
 */
export function arbitraryOf(api: Api, schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const resolved = deref(api, schema) as Row | undefined;
  if (!resolved || typeof resolved !== 'object') return fc.constant(null);
  if ('const' in resolved) return fc.constant(resolved.const);
  if (Array.isArray(resolved.enum)) return fc.constantFrom(...(resolved.enum as unknown[]));
  const branches = (resolved.oneOf ?? resolved.anyOf) as unknown[] | undefined;
  if (branches?.length)
    return fc.oneof(...branches.map((branch) => arbitraryOf(api, branch, depth)));
  const type = resolved.type;
  if (Array.isArray(type))
    return fc.oneof(...type.map((one) => arbitraryOf(api, { ...resolved, type: one }, depth)));
  switch (type) {
    case 'object':
      return objectOf(api, resolved, depth);
    case 'array': {
      const items = resolved.items ? arbitraryOf(api, resolved.items, depth + 1) : fc.string();
      const minLength = Number(resolved.minItems ?? 0);
      return fc.array(items, {
        minLength,
        maxLength: Math.max(minLength, Math.min(Number(resolved.maxItems ?? maxArray), maxArray)),
      });
    }
    case 'string':
      return stringOf(resolved);
    case 'integer':
      return fc.integer({
        min: Number(resolved.minimum ?? -1_000_000),
        max: Number(resolved.maximum ?? 1_000_000_000),
      });
    case 'number':
      return fc.double({
        min: Number(resolved.minimum ?? -1e9),
        max: Number(resolved.maximum ?? 1e9),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.constant('conformance');
  }
}

function stringOf(schema: Row): fc.Arbitrary<string> {
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Number(schema.maxLength ?? Number.POSITIVE_INFINITY);
  const fits = (value: string) => value.length >= minLength && value.length <= maxLength;
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'uri') return fc.webUrl().filter(fits);
  if (typeof schema.pattern === 'string')
    return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter(fits);
  return fc.string({
    minLength,
    maxLength: Math.max(minLength, Math.min(maxLength, maxFreeString)),
  });
}

function objectOf(api: Api, schema: Row, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties as Row | undefined) ?? {};
  const required = ((schema.required as string[] | undefined) ?? []).filter(
    (name) => name in properties,
  );
  // Past the depth bound only what is required is generated.
  const names = Object.keys(properties).filter(
    (name) => depth < maxDepth || required.includes(name),
  );
  if (names.length > 0) {
    return fc.record(
      Object.fromEntries(
        names.map((name) => [name, arbitraryOf(api, properties[name], depth + 1)]),
      ),
      { requiredKeys: required },
    );
  }
  const additional = schema.additionalProperties;
  if (typeof additional === 'object' && additional !== null && depth < maxDepth) {
    return fc.dictionary(
      fc.string({ minLength: 1, maxLength: 16 }),
      arbitraryOf(api, additional, depth + 1),
      {
        maxKeys: Math.min(Number(schema.maxProperties ?? maxArray), maxArray),
      },
    );
  }
  return fc.constant({});
}

/** A fast-check seed (a 32-bit integer) from the run's seed and what is generated with it. */
export function fastCheckSeed(seed: string, purpose: string): number {
  return createHash('sha256').update(`${seed}:${purpose}`).digest().readInt32BE(0);
}
