import type * as z from 'zod/mini';

// How a request the schemas refuse is named: each zod issue as the field it is about and a
// short code in the style of the conventional ones (`must_be_positive`), the branch of a
// union the input was meant for picked first.

type Schema = z.core.$ZodType;
type Issue = z.core.$ZodIssue;

function valueAt(data: unknown, path: PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (node, key) =>
      typeof node === 'object' && node !== null
        ? (node as Record<PropertyKey, unknown>)[key]
        : undefined,
    data,
  );
}

/**
 * Of the branches of a failed union, the one the input was meant for: the fewest issues
 * about fields the input does not have (a `{order: {...}}` body is the wrapped form), then
 * the branch the input got deepest into (a discriminated union stops at its discriminator,
 * so its one issue says little), then the fewest issues.
 */
function closestBranch(branches: Issue[][], data: unknown, base: PropertyKey[]): Issue[] {
  const missing = (issues: Issue[]) =>
    issues.filter((issue) => valueAt(data, [...base, ...issue.path]) === undefined).length;
  const depth = (issues: Issue[]) => Math.max(0, ...issues.map((issue) => issue.path.length));
  return (
    [...branches].sort(
      (a, b) => missing(a) - missing(b) || depth(b) - depth(a) || a.length - b.length,
    )[0] ?? []
  );
}

/**
 * A union of literals (`enum: [0, 1]` on an integer) fails as one branch per literal, each
 * naming only its own value: read together they are one value outside the allowed ones.
 */
function literalChoice(branches: Issue[][], at: PropertyKey[]): Issue | undefined {
  const refusals = branches.map((issues) => (issues.length === 1 ? issues[0] : undefined));
  const first = refusals[0];
  if (first?.code !== 'invalid_value') return undefined;
  const values: typeof first.values = [];
  for (const issue of refusals) {
    if (issue?.code !== 'invalid_value' || issue.path.join('.') !== first.path.join('.')) {
      return undefined;
    }
    values.push(...issue.values.filter((value) => !values.includes(value)));
  }
  return { ...first, path: [...at, ...first.path], values };
}

function flatten(issues: Issue[], data: unknown, base: PropertyKey[] = []): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) {
      return [{ ...issue, path: [...base, ...issue.path] }];
    }
    const at = [...base, ...issue.path];
    const choice = literalChoice(
      issue.errors.map((branch) => flatten(branch, data)),
      at,
    );
    if (choice) return [choice];
    return flatten(closestBranch(issue.errors, data, at), data, at);
  });
}

// zod reports a regex by its source between slashes.
const decimalPattern = String(/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/);

/** A short machine-readable reason, in the style of the conventional error codes. */
function reason(issue: Issue, data: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (valueAt(data, issue.path) === undefined) return 'required';
      // zod names an integer `int`; test control and the conventions spell it out.
      return issue.expected === 'int' ? 'must_be_an_integer' : `must_be_${issue.expected}`;
    case 'invalid_format':
      if (issue.format !== 'regex') return `must_be_${issue.format}`;
      return issue.pattern === decimalPattern ? 'must_be_decimal' : 'invalid_format';
    case 'too_big':
      if (issue.origin === 'string') return `longer_than_${issue.maximum}_characters`;
      if (issue.origin === 'array') return `more_than_${issue.maximum}_items`;
      return `must_be_at_most_${issue.maximum}`;
    case 'too_small':
      return issue.origin === 'string'
        ? `shorter_than_${issue.minimum}_characters`
        : `must_be_at_least_${issue.minimum}`;
    case 'invalid_value':
      // zod reports a missing enum as a value outside it.
      if (valueAt(data, issue.path) === undefined) return 'required';
      return `must_be_one_of:${issue.values.map(String).join(',')}`;
    case 'invalid_union':
      // What is left of a union here is a discriminator that matches no member.
      if (valueAt(data, issue.path) === undefined) return 'required';
      return 'options' in issue && issue.options
        ? `must_be_one_of:${issue.options.map(String).join(',')}`
        : 'invalid';
    default:
      return 'invalid';
  }
}

const lengthCode = /^longer_than_(\d+)_characters$/;

/**
 * `codes` with one length bound: a field under two (an allOf of a general and a narrower
 * string) is named by the tighter, the one that decides what it may be.
 */
function tightestLength(codes: string[]): string[] {
  const bounds = codes.flatMap((code) => lengthCode.exec(code)?.[1] ?? []).map(Number);
  if (bounds.length < 2) return codes;
  const tightest = `longer_than_${Math.min(...bounds)}_characters`;
  return codes.filter((code) => !lengthCode.test(code) || code === tightest);
}

export function fieldErrors(
  issues: Issue[],
  data: unknown,
  whole: string,
): Record<string, string[]> {
  // A Map: a field can be any key a caller sent, `__proto__` too.
  const byField = new Map<string, string[]>();
  const add = (path: readonly PropertyKey[], code: string) => {
    const field = path.length > 0 ? path.map(String).join('.') : whole;
    const codes = byField.get(field) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byField.set(field, tightestLength(codes));
  };
  for (const issue of flatten(issues, data)) {
    // A key a closed object does not take is named as a field of its own.
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key], 'unknown_field');
    } else {
      add(issue.path, reason(issue, data));
    }
  }
  return Object.fromEntries(byField);
}

/**
 * The branch of a union of object shapes that the input was written for: the one sharing
 * strictly more keys with it than any other (a body with an `order` key is the wrapped
 * form). Validated alone, so a bad wrapped body cannot pass as an empty flat one; with no
 * clear branch, the whole union.
 */
export function intendedBranch(schema: Schema, data: unknown): Schema {
  // Read through the definition, which classic and mini schemas share.
  const def = schema._zod.def as { type: string; options?: Schema[] };
  if (def.type !== 'union' || !def.options || typeof data !== 'object' || data === null) {
    return schema;
  }
  const keys = Object.keys(data);
  let best: Schema = schema;
  let bestOverlap = 0;
  for (const option of def.options) {
    const shape = (option._zod.def as { shape?: Record<string, unknown> }).shape;
    if (!shape) return schema;
    const overlap = keys.filter((key) => Object.hasOwn(shape, key)).length;
    if (overlap > bestOverlap) [best, bestOverlap] = [option, overlap];
    else if (overlap === bestOverlap) best = schema;
  }
  return best;
}
