import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { type ApiName, deref } from './spec.js';

type Row = Record<string, unknown>;

// Generated bodies stay small: a server's answer to a long array says little more than to a short one.
const maxArray = 3;
const maxFreeString = 24;
const maxDepth = 4;

/**
 * Candidates a bounded filter draws for one value before it gives up. A generator that meets
 * its schema keeps nearly every candidate, so the bound is reached only by a schema it cannot
 * meet, and then the run reports that instead of spinning.
 */
export const maxFilterTries = 100;

/** Drawn in place of a value when `maxFilterTries` candidates in a row were refused. */
export const unsatisfied: unique symbol = Symbol('unsatisfied');
export type Unsatisfied = typeof unsatisfied;

/**
 * `arbitrary.filter(accept)` with a bound: fast-check's own filter draws until a candidate is
 * accepted, forever when none ever is, so every filter of generated input goes through here.
 */
class BoundedFilter<T> extends fc.Arbitrary<T | Unsatisfied> {
  constructor(
    private readonly source: fc.Arbitrary<T>,
    private readonly accept: (value: T) => boolean,
    private readonly tries: number,
  ) {
    super();
  }

  generate(random: fc.Random, biasFactor: number | undefined): fc.Value<T | Unsatisfied> {
    for (let attempt = 0; attempt < this.tries; attempt++) {
      const candidate = this.source.generate(random, biasFactor);
      if (this.accept(candidate.value)) return candidate;
    }
    return new fc.Value(unsatisfied, undefined);
  }

  canShrinkWithoutContext(value: unknown): value is T | Unsatisfied {
    return (
      value === unsatisfied ||
      (this.source.canShrinkWithoutContext(value) && this.accept(value as T))
    );
  }

  shrink(value: T | Unsatisfied, context: unknown): fc.Stream<fc.Value<T | Unsatisfied>> {
    if (value === unsatisfied) return fc.Stream.nil();
    return this.source.shrink(value, context).filter((candidate) => this.accept(candidate.value));
  }
}

/** Values of `arbitrary` that `accept` keeps, or `unsatisfied` after `tries` refused in a row. */
export function satisfying<T>(
  arbitrary: fc.Arbitrary<T>,
  accept: (value: T) => boolean,
  tries = maxFilterTries,
): fc.Arbitrary<T | Unsatisfied> {
  return new BoundedFilter(arbitrary, accept, tries);
}

/**
 * Request bodies a JSON Schema of the specs admits, as a fast-check arbitrary: `$ref`, `const`,
 * `enum`, `oneOf` / `anyOf` (a `discriminator` picks a member and pins its property to the
 * member's key), `allOf` (its members merged into one schema), typed objects (required and optional properties, maps through
 * `additionalProperties`), arrays, strings (`pattern`, `format` uuid and uri, lengths), numbers
 * and booleans. Keywords that relate fields (`if` / `then`) are left to a validator: filter
 * with the schema's own. Shrinking goes towards fewer optional fields, shorter strings and the
 * first enum value.
 */
export function arbitraryOf(api: ApiName, schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const resolved = deref(api, schema) as Row | undefined;
  if (!resolved || typeof resolved !== 'object') return fc.constant(null);
  if ('const' in resolved) return fc.constant(resolved.const);
  if (Array.isArray(resolved.enum)) return fc.constantFrom(...(resolved.enum as unknown[]));
  if (Array.isArray(resolved.allOf)) return arbitraryOf(api, mergeAllOf(api, resolved), depth);
  const members = discriminatedMembers(api, resolved);
  if (members) return fc.oneof(...members.map((member) => arbitraryOf(api, member, depth)));
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

/**
 * One schema saying what all of `allOf` say: properties merged (a property's later schema adds
 * to its earlier one, so a member's `const` narrows the shared field), `required` joined.
 */
function mergeAllOf(api: ApiName, schema: Row): Row {
  const { allOf, ...rest } = schema;
  const merged: Row = {};
  const properties: Row = {};
  const required = new Set<string>();
  for (const part of [...(allOf as unknown[]), rest]) {
    const resolved = deref(api, part) as Row | undefined;
    if (!resolved || typeof resolved !== 'object') continue;
    const flat = Array.isArray(resolved.allOf) ? mergeAllOf(api, resolved) : resolved;
    for (const [name, property] of Object.entries((flat.properties as Row | undefined) ?? {})) {
      properties[name] = name in properties ? narrowed(api, properties[name], property) : property;
    }
    for (const name of (flat.required as string[] | undefined) ?? []) required.add(name);
    for (const [key, value] of Object.entries(flat)) {
      if (key !== 'properties' && key !== 'required') merged[key] = value;
    }
  }
  return { ...merged, type: merged.type ?? 'object', properties, required: [...required] };
}

function narrowed(api: ApiName, earlier: unknown, later: unknown): Row {
  return { ...(deref(api, earlier) as Row), ...(deref(api, later) as Row) };
}

/**
 * The members of a `oneOf` with a `discriminator`, each with the discriminating property
 * pinned to its key, so every body drawn is one member whole instead of a blend a validator
 * has to weed out.
 */
function discriminatedMembers(api: ApiName, schema: Row): Row[] | undefined {
  const discriminator = schema.discriminator as
    | { propertyName?: string; mapping?: Record<string, string> }
    | undefined;
  const branches = schema.oneOf ?? schema.anyOf;
  if (!discriminator?.propertyName || !Array.isArray(branches)) return undefined;
  const property = discriminator.propertyName;
  const keyOf = new Map(
    Object.entries(discriminator.mapping ?? {}).map(([key, ref]) => [ref, key] as const),
  );
  return branches.map((branch) => {
    const ref = (branch as Row | undefined)?.$ref;
    const key = typeof ref === 'string' ? (keyOf.get(ref) ?? ref.split('/').pop()) : undefined;
    const member = deref(api, branch) as Row;
    if (key === undefined) return member;
    // Pinned after the member's own allOf, so the key wins over the shared field's enum.
    return {
      allOf: [
        member,
        { type: 'object', required: [property], properties: { [property]: { const: key } } },
      ],
    };
  });
}

// A string that meets neither bound in `maxFilterTries` draws is `unsatisfied`, which no
// validator accepts, so the body holding it is refused and the bound above it reports why.
function stringOf(schema: Row): fc.Arbitrary<string | Unsatisfied> {
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Number(schema.maxLength ?? Number.POSITIVE_INFINITY);
  const fits = (value: string) => value.length >= minLength && value.length <= maxLength;
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'uri') return satisfying(fc.webUrl(), fits);
  if (typeof schema.pattern === 'string')
    return satisfying(fc.stringMatching(new RegExp(schema.pattern, 'u')), fits);
  return fc.string({
    minLength,
    maxLength: Math.max(minLength, Math.min(maxLength, maxFreeString)),
  });
}

function objectOf(api: ApiName, schema: Row, depth: number): fc.Arbitrary<unknown> {
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

/**
 * How to run a shrunk failure again, in words: the run's seed replays it all, and fast-check's
 * seed and path lead straight to the counterexample.
 */
export function reproduceWith(
  runSeed: string,
  fastCheck: number,
  path: string | null | undefined,
): string {
  return `reproduce with --seed ${runSeed} (fast-check seed ${fastCheck}${path ? `, path ${path}` : ''})`;
}
