import { type ApiName, deref } from './spec.js';

/** One malformed request body derived from a request schema, and the requirement it tests. */
export interface BadInputCase {
  requirementId: string;
  /** JSON pointer of the field the case breaks; `` for the body as a whole. */
  pointer: string;
  description: string;
  body: unknown;
}

type Row = Record<string, unknown>;

const jsonTypeOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value;

// Values of every JSON type, tried in order for a field that must not take them.
const anyTypeValues: unknown[] = [
  true,
  12345,
  'conformance',
  { conformance: true },
  ['conformance'],
];

/** The JSON types a schema admits, following $ref, oneOf and anyOf; empty when it says nothing. */
export function allowedTypes(api: ApiName, schema: unknown): Set<string> {
  const resolved = deref(api, schema) as Row | undefined;
  const types = new Set<string>();
  if (!resolved) return types;
  const declared = resolved.type;
  for (const type of Array.isArray(declared) ? declared : declared ? [declared] : []) {
    types.add(String(type));
    if (type === 'number') types.add('integer');
  }
  for (const value of [
    ...((resolved.enum as unknown[]) ?? []),
    ...('const' in resolved ? [resolved.const] : []),
  ]) {
    types.add(jsonTypeOf(value));
  }
  for (const branch of [
    ...((resolved.oneOf as unknown[]) ?? []),
    ...((resolved.anyOf as unknown[]) ?? []),
  ]) {
    const inner = allowedTypes(api, branch);
    if (inner.size === 0) return new Set();
    for (const type of inner) types.add(type);
  }
  return types;
}

/**
 * The object schema `body` is meant to match: through $ref, the branch of a oneOf or anyOf
 * that the discriminator names or whose required fields the body has, and the properties and
 * required fields of an allOf merged (a later part's property replaces an earlier one's).
 */
function objectSchema(api: ApiName, schema: unknown, body: Row): Row | undefined {
  const resolved = deref(api, schema) as Row | undefined;
  if (!resolved) return undefined;
  const parts = resolved.allOf as unknown[] | undefined;
  if (parts) {
    const merged = parts.map((part) => objectSchema(api, part, body));
    if (merged.some((part) => part === undefined)) return undefined;
    return {
      type: 'object',
      required: [...new Set(merged.flatMap((part) => (part?.required as string[]) ?? []))],
      properties: Object.assign({}, ...merged.map((part) => part?.properties ?? {})),
    };
  }
  const branches = (resolved.oneOf ?? resolved.anyOf) as unknown[] | undefined;
  if (!branches) return resolved.properties ? resolved : undefined;
  const discriminator = resolved.discriminator as
    | { propertyName: string; mapping?: Record<string, string> }
    | undefined;
  const named = discriminator?.mapping?.[String(body[discriminator.propertyName])];
  if (named) return objectSchema(api, { $ref: named }, body);
  return branches
    .map((branch) => objectSchema(api, branch, body))
    .find(
      (branch) =>
        branch !== undefined &&
        ((branch.required as string[] | undefined) ?? []).every((name) => name in body),
    );
}

const escapeSegment = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1');

function setAt(body: Row, path: string[], value: unknown, remove = false): Row {
  const copy = structuredClone(body);
  let node: Row = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Row;
  const last = path[path.length - 1] as string;
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

/**
 * Every malformed variant of `base` (a valid body) that the schema says is wrong: each
 * required field left out, each field given a value of another JSON type, an unknown enum
 * value, a string one longer than maxLength, a string that breaks its pattern, a negative
 * quantity, and a key a closed object does not take. Objects present in `base` are followed
 * one level down.
 */
export function deriveBadInput(
  api: ApiName,
  schema: unknown,
  base: Row,
  path: string[] = [],
  depth = 0,
): BadInputCase[] {
  const object = objectSchema(
    api,
    schema,
    path.length === 0
      ? base
      : (path.reduce<unknown>((node, key) => (node as Row)[key], base) as Row),
  );
  if (!object) return [];
  const cases: BadInputCase[] = [];
  const pointer = (name: string) => `/${[...path, name].map(escapeSegment).join('/')}`;
  const at = path.reduce<unknown>((node, key) => (node as Row)[key], base) as Row;
  for (const name of (object.required as string[] | undefined) ?? []) {
    if (!(name in at)) continue;
    cases.push({
      requirementId: 'INPUT-MISSING-REQUIRED',
      pointer: pointer(name),
      description: `without the required ${pointer(name)}`,
      body: setAt(base, [...path, name], undefined, true),
    });
  }
  for (const [name, raw] of Object.entries((object.properties as Row | undefined) ?? {})) {
    const property = deref(api, raw) as Row;
    const where = pointer(name);
    const types = allowedTypes(api, property);
    const wrong =
      types.size > 0 ? anyTypeValues.find((value) => !types.has(jsonTypeOf(value))) : undefined;
    if (wrong !== undefined) {
      cases.push({
        requirementId: 'INPUT-WRONG-TYPE',
        pointer: where,
        description: `${where} as ${jsonTypeOf(wrong)}`,
        body: setAt(base, [...path, name], wrong),
      });
    }
    const strings = deref(api, property.oneOf ? undefined : property) as Row | undefined;
    // A constant is an enumeration of one (the discriminator of a member of a union).
    const enumeration =
      (strings?.enum as unknown[] | undefined) ??
      (strings && 'const' in strings ? [strings.const] : undefined);
    if (enumeration?.every((value) => typeof value === 'string')) {
      cases.push({
        requirementId: 'INPUT-UNKNOWN-ENUM',
        pointer: where,
        description: `${where} outside its enumeration`,
        body: setAt(base, [...path, name], 'CONFORMANCE_UNKNOWN_VALUE'),
      });
    }
    if (typeof strings?.maxLength === 'number') {
      const value = 'x'.repeat(strings.maxLength + 1);
      cases.push({
        requirementId: 'INPUT-TOO-LONG',
        pointer: where,
        description: `${where} of ${value.length} characters (maxLength ${strings.maxLength})`,
        body: setAt(base, [...path, name], value),
      });
    }
    if (typeof strings?.pattern === 'string') {
      const pattern = new RegExp(strings.pattern, 'u');
      const value = ['not a decimal', '1e5', 'x/y/z'].find((candidate) => !pattern.test(candidate));
      if (value !== undefined) {
        cases.push({
          requirementId: 'INPUT-PATTERN',
          pointer: where,
          description: `${where} "${value}" against the pattern ${strings.pattern}`,
          body: setAt(base, [...path, name], value),
        });
      }
      if (name === 'quantity' && pattern.test('-1')) {
        cases.push({
          requirementId: 'INPUT-NEGATIVE-QUANTITY',
          pointer: where,
          description: `${where} "-1"`,
          body: setAt(base, [...path, name], '-1'),
        });
      }
    }
    const nested = at[name];
    if (depth < 1 && typeof nested === 'object' && nested !== null && !Array.isArray(nested)) {
      cases.push(...deriveBadInput(api, property, base, [...path, name], depth + 1));
    }
  }
  if (object.additionalProperties === false) {
    cases.push({
      requirementId: 'INPUT-UNKNOWN-FIELD',
      pointer: pointer(unknownField),
      description: `with ${pointer(unknownField)}, a key the closed object does not take`,
      body: setAt(base, [...path, unknownField], true),
    });
  }
  return cases;
}

/** A key no schema of the specs declares. */
const unknownField = 'conformance_unknown_field';

/** A body that is not JSON at all. */
export const malformedJson = '{"conformance": ';
