import * as exchangeSchemas from '@exchange-kit/contract/exchange/schemas';
import * as partnerSchemas from '@exchange-kit/contract/partner/schemas';
import { resolveRef } from '@exchange-kit/contract/spec-reader';
import * as z from 'zod/mini';
import type { Route } from './router.js';
import { type Api, type SpecSchema, specs } from './spec.js';
import { HttpError } from './types.js';

type Schema = z.core.$ZodType;
type Issue = z.core.$ZodIssue;

const schemaModules: Record<Api, Record<string, unknown>> = {
  exchange: exchangeSchemas,
  partner: partnerSchemas,
};

interface OperationSchemas {
  path?: Schema;
  query?: Schema;
  body?: Schema;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** The generated request schemas of an operation: `z<Op>Path`, `z<Op>Query`, `z<Op>Body`. */
function operationSchemas(route: Route): OperationSchemas {
  const module = schemaModules[route.api];
  const name = route.operation.operationId.replace(/^./, (first) => first.toUpperCase());
  const pick = (part: string) => {
    const schema = module[`z${name}${part}`];
    return isSchema(schema) ? schema : undefined;
  };
  return { path: pick('Path'), query: pick('Query'), body: pick('Body') };
}

export interface RawRequest {
  path: Record<string, string>;
  query: Record<string, string>;
  /** The parsed JSON body; undefined when none was sent. */
  body: unknown;
}

const integerText = /^-?(0|[1-9][0-9]*)$/;
const numberText = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * Path and query values arrive as text; the generated schemas describe them by their spec
 * type. A value is given to its schema as a number when the spec allows a number there and
 * the text is one, so `limit=20` meets `integer` and `order_id=12` meets `[integer, string]`.
 */
function coerceParameters(
  route: Route,
  where: 'path' | 'query',
  values: Record<string, string>,
): Record<string, unknown> {
  const spec = specs[route.api];
  const coerced: Record<string, unknown> = { ...values };
  for (const parameter of route.parameters) {
    if (parameter.in !== where) continue;
    const value = values[parameter.name];
    if (value === undefined || !parameter.schema) continue;
    const schema = resolveRef(spec, parameter.schema as SpecSchema);
    const types = ([] as string[]).concat(schema.type ?? []);
    if (types.includes('integer') && integerText.test(value) && Number.isSafeInteger(+value)) {
      coerced[parameter.name] = Number(value);
    } else if (types.includes('number') && numberText.test(value)) {
      coerced[parameter.name] = Number(value);
    } else if (types.includes('boolean') && (value === 'true' || value === 'false')) {
      coerced[parameter.name] = value === 'true';
    }
  }
  return coerced;
}

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
 * the fewest issues.
 */
function closestBranch(branches: Issue[][], data: unknown, base: PropertyKey[]): Issue[] {
  const missing = (issues: Issue[]) =>
    issues.filter((issue) => valueAt(data, [...base, ...issue.path]) === undefined).length;
  return [...branches].sort((a, b) => missing(a) - missing(b) || a.length - b.length)[0] ?? [];
}

function flatten(issues: Issue[], data: unknown, base: PropertyKey[] = []): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) {
      return [{ ...issue, path: [...base, ...issue.path] }];
    }
    const at = [...base, ...issue.path];
    return flatten(closestBranch(issue.errors, data, at), data, at);
  });
}

// zod reports a regex by its source between slashes.
const decimalPattern = String(/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/);

/** A short machine-readable reason, in the style of the conventional error codes. */
function reason(issue: Issue, data: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return valueAt(data, issue.path) === undefined ? 'required' : `must_be_${issue.expected}`;
    case 'invalid_format':
      if (issue.format !== 'regex') return `must_be_${issue.format}`;
      return issue.pattern === decimalPattern ? 'must_be_decimal' : 'invalid_format';
    case 'too_big':
      return issue.origin === 'string'
        ? `longer_than_${issue.maximum}_characters`
        : `must_be_at_most_${issue.maximum}`;
    case 'too_small':
      return issue.origin === 'string'
        ? `shorter_than_${issue.minimum}_characters`
        : `must_be_at_least_${issue.minimum}`;
    case 'invalid_value':
      return `must_be_one_of:${issue.values.map(String).join(',')}`;
    case 'unrecognized_keys':
      return `unknown_fields:${issue.keys.join(',')}`;
    default:
      return 'invalid';
  }
}

function fieldErrors(issues: Issue[], data: unknown, whole: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of flatten(issues, data)) {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : whole;
    const codes = errors[field] ?? [];
    const code = reason(issue, data);
    if (!codes.includes(code)) codes.push(code);
    errors[field] = codes;
  }
  return errors;
}

/** The status a refusal takes: 422 where the operation declares it, then 400, else 404. */
function refusalStatus(route: Route, part: 'path' | 'query' | 'body'): number {
  const declared = Object.keys(route.operation.responses);
  if (part === 'body' && declared.includes('422')) return 422;
  if (part !== 'path' && declared.includes('400')) return 400;
  if (declared.includes('422')) return 422;
  return 404;
}

/**
 * The branch of a union of object shapes that the input was written for: the one sharing
 * the most keys with it (a body with an `order` key is the wrapped form). Its own issues
 * name the fields far better than the union's.
 */
function intendedBranch(schema: Schema, data: unknown): Schema {
  // Read through the definition, which classic and mini schemas share.
  const def = schema._zod.def as { type: string; options?: Schema[] };
  if (def.type !== 'union' || !def.options || typeof data !== 'object' || data === null) {
    return schema;
  }
  const keys = Object.keys(data);
  let best: Schema = schema;
  let bestOverlap = -1;
  for (const option of def.options) {
    const shape = (option._zod.def as { shape?: Record<string, unknown> }).shape;
    if (!shape) return schema;
    const overlap = keys.filter((key) => key in shape).length;
    if (overlap > bestOverlap) [best, bestOverlap] = [option, overlap];
  }
  return best;
}

/** Where a string holds a NUL character, which no PostgreSQL text can store. */
function nulField(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = nulField(item, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

export interface ValidRequest {
  body: unknown;
}

/**
 * Validates path, query and body against the operation's generated schemas. Throws an
 * HttpError naming each refused field and why, `{errors: {quantity: ["must_be_decimal"]}}`.
 * Returns the body as the schema reads it (unknown fields dropped).
 */
export function validateRequest(route: Route, request: RawRequest): ValidRequest {
  const schemas = operationSchemas(route);
  for (const part of ['path', 'query', 'body'] as const) {
    const field = nulField(request[part]);
    if (field !== undefined) {
      throw new HttpError(refusalStatus(route, part), 'NUL character', {
        [field || part]: ['must_not_contain_nul'],
      });
    }
  }
  for (const part of ['path', 'query'] as const) {
    const schema = schemas[part];
    if (!schema) continue;
    const data = coerceParameters(route, part, request[part]);
    const result = z.safeParse(schema, data);
    if (!result.success) {
      throw new HttpError(
        refusalStatus(route, part),
        `Invalid ${part}`,
        fieldErrors(result.error.issues, data, part),
      );
    }
  }
  const bodySpec = route.operation.requestBody
    ? resolveRef(specs[route.api], route.operation.requestBody)
    : undefined;
  if (!bodySpec || !schemas.body) return { body: undefined };
  if (request.body === undefined) {
    if (bodySpec.required) {
      throw new HttpError(refusalStatus(route, 'body'), 'A body is required', {
        body: ['required'],
      });
    }
    return { body: undefined };
  }
  const result = z.safeParse(schemas.body, request.body);
  if (!result.success) {
    const branch = z.safeParse(intendedBranch(schemas.body, request.body), request.body);
    const issues = branch.success ? result.error.issues : branch.error.issues;
    throw new HttpError(
      refusalStatus(route, 'body'),
      'Invalid body',
      fieldErrors(issues, request.body, 'body'),
    );
  }
  return { body: result.data };
}
