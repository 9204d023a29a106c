/**
 * Values drawn from the specs' own schemas, each node sometimes swapped for a hostile value:
 * the fields, their names and their shapes come from the bundled spec, never from a list
 * written here.
 */
import { type OpenApiDocument, resolveRef } from '@exchange-kit/contract/spec-reader';
import fc from 'fast-check';
import { hostileJson, hostileKeys, hostileStrings } from './hostile-values.js';
import { jsonArray, jsonObject, jsonString } from './json-text.js';

/** The parts of a JSON schema the fuzzer reads. */
export interface FuzzSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  example?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, FuzzSchema>;
  required?: string[];
  additionalProperties?: boolean | FuzzSchema;
  items?: FuzzSchema;
  prefixItems?: FuzzSchema[];
  maxItems?: number;
  oneOf?: FuzzSchema[];
  anyOf?: FuzzSchema[];
  allOf?: FuzzSchema[];
}

export interface ValueOptions {
  document: OpenApiDocument;
  /** Values of the running sandbox a field of this name can hold (the demo public key). */
  known: Record<string, string>;
  /** How often a node is swapped for a hostile value, 0 to 1. */
  hostileShare: number;
  /**
   * The one node to make hostile, as property names (`[]` for an array's items) from the
   * node being generated; every other node is plausible. Absent: hostile at `hostileShare`.
   */
  target?: readonly string[];
  /**
   * Only what a valid request needs: required properties alone, and a schema's example where
   * it has one, so that the one targeted value is all that stands out.
   */
  minimal?: boolean;
  /** The JSON text the targeted node takes; absent: any hostile value. */
  targetValue?: string;
}

/** The options for a child node reached through `step` (a property name, or `[]`). */
function childOptions(options: ValueOptions, step: string): ValueOptions {
  if (options.target === undefined) return options;
  if (options.target[0] === step) return { ...options, target: options.target.slice(1) };
  return { ...options, target: undefined, hostileShare: 0, minimal: true };
}

/** Whether the targeted node lies under the child reached through `step`. */
function targets(options: ValueOptions, step: string): boolean {
  return options.target !== undefined && options.target[0] === step;
}

// The schemas refer to themselves in places (an order's take profit is an order); past
// this depth a branch is cut short with null.
const maxDepth = 5;

function decimalText(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.nat({ max: 100_000 }), fc.nat({ max: 9_999 }))
    .map(([whole, fraction]) => (fraction === 0 ? `${whole}` : `${whole}.${fraction}`));
}

function plainString(schema: FuzzSchema): fc.Arbitrary<string> {
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time') return fc.constant(new Date(0).toISOString());
  const maxLength = Math.min(schema.maxLength ?? 16, 16);
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern);
    // Decimals as people write them; other patterns (a `BTC/USDC` symbol) as the regex allows.
    if (pattern.test('1.5')) return decimalText();
    return fc.stringMatching(pattern).filter((text) => text.length <= (schema.maxLength ?? 64));
  }
  const minLength = Math.min(schema.minLength ?? 0, maxLength);
  return fc.string({ minLength, maxLength });
}

function typesOf(schema: FuzzSchema): string[] {
  if (schema.type !== undefined) return ([] as string[]).concat(schema.type);
  if (schema.properties) return ['object'];
  return ['string'];
}

function objectValue(schema: FuzzSchema, options: ValueOptions, depth: number) {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  // The spec's example of the whole object names values that work together (a symbol and
  // its currency): each property takes its example value as a likely choice.
  const example =
    typeof schema.example === 'object' && schema.example !== null
      ? (schema.example as Record<string, unknown>)
      : {};
  const entries = properties.map(([name, property]) => {
    const exampleValue = Object.hasOwn(example, name) ? example[name] : undefined;
    const withExample: FuzzSchema =
      exampleValue === undefined || typeof exampleValue === 'object'
        ? property
        : { ...resolveRef(options.document, property), example: exampleValue };
    const value = schemaValue(withExample, childOptions(options, name), depth + 1, name).map(
      (text) => [name, text] as const,
    );
    if (required.has(name) || targets(options, name)) return value.map((entry) => [entry]);
    if (options.minimal) return fc.constant([]);
    return fc.option(value, { nil: undefined }).map((entry) => (entry ? [entry] : []));
  });
  // A free object (additionalProperties) gets a few entries of its own.
  const freeValue =
    typeof schema.additionalProperties === 'object'
      ? schemaValue(schema.additionalProperties, options, depth + 1)
      : fc.oneof(
          { weight: 9, arbitrary: fc.string({ maxLength: 8 }).map(jsonString) },
          { weight: 9, arbitrary: fc.integer().map(String) },
          // Any JSON goes in a free object, nesting thousands of levels deep included.
          { weight: 2, arbitrary: hostileJson() },
        );
  // Its keys are free text too, stored as sent: now and then a hostile one.
  const freeKey = fc.oneof(
    { weight: 9, arbitrary: fc.string({ maxLength: 8 }) },
    { weight: 1, arbitrary: fc.constantFrom(...hostileKeys) },
  );
  const free =
    schema.additionalProperties && !options.minimal
      ? fc.array(fc.tuple(freeKey, freeValue), { maxLength: 3 })
      : fc.constant([]);
  // Now and then, a key a parser or a prototype may treat specially, or a repeat of a key
  // the spec names.
  const extra = fc.oneof(
    { weight: 100 - hostileWeight(options), arbitrary: fc.constant([]) },
    {
      weight: hostileWeight(options),
      arbitrary: fc
        .tuple(
          fc.constantFrom(...hostileKeys, ...properties.map(([name]) => name)),
          fc.oneof(freeValue, hostileJson()),
        )
        .map((entry) => [entry]),
    },
  );
  return fc
    .tuple(fc.tuple(...entries), free, extra)
    .map(([named, more, odd]) => jsonObject([...named.flat(), ...more, ...odd]));
}

function arrayValue(schema: FuzzSchema, options: ValueOptions, depth: number) {
  if (schema.prefixItems) {
    return fc
      .tuple(...schema.prefixItems.map((item) => schemaValue(item, options, depth + 1)))
      .map(jsonArray);
  }
  const items = schema.items ?? {};
  const minLength = targets(options, '[]') ? 1 : 0;
  return fc
    .array(schemaValue(items, childOptions(options, '[]'), depth + 1), {
      minLength,
      maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)),
    })
    .map(jsonArray);
}

/** A plausible value of `schema`, as JSON text, without any hostile swap at this node. */
function plausible(
  schema: FuzzSchema,
  options: ValueOptions,
  depth: number,
  name?: string,
): fc.Arbitrary<string> {
  if (depth > maxDepth) return fc.constant('null');
  const known = name === undefined ? undefined : options.known[name];
  const branches = [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  if (branches.length > 0) {
    return fc.oneof(...branches.map((branch) => schemaValue(branch, options, depth, name)));
  }
  if (schema.allOf) {
    const merged: FuzzSchema = { properties: {}, required: [] };
    for (const part of schema.allOf) {
      const resolved = resolveRef(options.document, part);
      Object.assign(merged, resolved, {
        properties: Object.assign(merged.properties ?? {}, resolved.properties),
        required: [...(merged.required ?? []), ...(resolved.required ?? [])],
      });
    }
    return plausible(merged, options, depth, name);
  }
  // A value of the running sandbox gets past its lookup, so it is the usual choice.
  if (known !== undefined) {
    return fc.oneof(
      { weight: 9, arbitrary: fc.constant(jsonString(known)) },
      { weight: 1, arbitrary: plausible({ ...schema }, { ...options, known: {} }, depth) },
    );
  }
  const choices: fc.Arbitrary<string>[] = [];
  if (schema.const !== undefined) return fc.constant(JSON.stringify(schema.const));
  if (schema.enum) return fc.constantFrom(...schema.enum.map((value) => JSON.stringify(value)));
  if (schema.example !== undefined && typeof schema.example !== 'object') {
    if (options.minimal) return fc.constant(JSON.stringify(schema.example));
    // Twice: an example is known to pass, so it gets the request to the checks behind it.
    const example = fc.constant(JSON.stringify(schema.example));
    choices.push(example, example);
  }
  for (const type of typesOf(schema)) {
    if (type === 'string') choices.push(plainString(schema).map(jsonString));
    if (type === 'integer') {
      const min = Math.max(schema.minimum ?? 0, -1_000);
      const max = Math.min(schema.maximum ?? 1_000, 1_000);
      choices.push(fc.integer({ min, max: Math.max(min, max) }).map(String));
    }
    if (type === 'number') choices.push(decimalText());
    if (type === 'boolean') choices.push(fc.boolean().map(String));
    if (type === 'null') choices.push(fc.constant('null'));
    if (type === 'object') choices.push(objectValue(schema, options, depth));
    if (type === 'array') choices.push(arrayValue(schema, options, depth));
  }
  return choices.length > 0 ? fc.oneof(...choices) : fc.constant('null');
}

/** The hostile share as a weight out of 100. */
function hostileWeight(options: ValueOptions): number {
  return Math.round(options.hostileShare * 100);
}

/**
 * A value of `schema` as JSON text: plausible most of the time, so a request gets past its
 * first check and reaches the deeper ones, and hostile at a share of its nodes.
 */
export function schemaValue(
  schema: FuzzSchema,
  options: ValueOptions,
  depth = 0,
  name?: string,
): fc.Arbitrary<string> {
  const resolved = resolveRef(options.document, schema);
  if (options.target?.length === 0) {
    return options.targetValue === undefined
      ? hostileValue(resolved)
      : fc.constant(options.targetValue);
  }
  const value = plausible(resolved, options, depth, name);
  if (options.hostileShare <= 0) return value;
  const weight = hostileWeight(options);
  return fc.oneof(
    { arbitrary: value, weight: 100 - weight },
    { arbitrary: hostileValue(resolved), weight },
  );
}

/**
 * A hostile value for a node of `schema`. Where the spec wants a string, a bad string is the
 * likelier attack: it passes the type check and goes on to the store.
 */
function hostileValue(schema: FuzzSchema): fc.Arbitrary<string> {
  if (!typesOf(schema).includes('string')) return hostileJson();
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...hostileStrings).map(jsonString) },
    { weight: 1, arbitrary: hostileJson() },
  );
}

/** A schema and, however deeply composed, every schema its allOf, oneOf and anyOf name. */
function composedParts(schema: FuzzSchema, document: OpenApiDocument): FuzzSchema[] {
  const resolved = resolveRef(document, schema);
  const composed = [
    ...(resolved.allOf ?? []),
    ...(resolved.oneOf ?? []),
    ...(resolved.anyOf ?? []),
  ];
  return [resolved, ...composed.flatMap((part) => composedParts(part, document))];
}

/**
 * Every node of `schema` a targeted value can replace, as paths of property names (`[]` for
 * an array's items), down to the depth at which generation cuts recursion short.
 */
export function nodePaths(
  schema: FuzzSchema,
  document: OpenApiDocument,
  depth = 0,
): readonly (readonly string[])[] {
  if (depth > maxDepth) return [];
  const paths = new Map<string, readonly string[]>();
  for (const part of composedParts(schema, document)) {
    const children: [string, FuzzSchema][] = Object.entries(part.properties ?? {});
    if (part.items) children.push(['[]', part.items]);
    for (const [step, child] of children) {
      for (const path of [
        [step],
        ...nodePaths(child, document, depth + 1).map((rest) => [step, ...rest]),
      ]) {
        paths.set(path.join('\u0000'), path);
      }
    }
  }
  return [...paths.values()];
}
