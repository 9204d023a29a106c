import { isUtf8 } from 'node:buffer';
import type { ApiName } from '@exchange-kit/contract/documents';
import { bundledDocuments } from '@exchange-kit/contract/documents';
import * as exchangeSchemas from '@exchange-kit/contract/exchange/schemas';
import * as partnerSchemas from '@exchange-kit/contract/partner/schemas';
import { resolveRef } from '@exchange-kit/contract/spec-reader';
import * as z from 'zod/mini';
import { keysHeld, repeatedKeyIn, scanJson } from './body-scan.js';
import { fieldErrors, intendedBranch } from './field-errors.js';
import { HttpError } from './refusals.js';
import { perRoute, type Route } from './router.js';
import type { SpecSchema } from './spec.js';

type Schema = z.core.$ZodType;

const schemaModules: Record<ApiName, Record<string, unknown>> = {
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
const operationSchemas = perRoute((route): OperationSchemas => {
  const module = schemaModules[route.api];
  const name = route.operation.operationId.replace(/^./, (first) => first.toUpperCase());
  const pick = (part: string) => {
    const schema = module[`z${name}${part}`];
    return isSchema(schema) ? schema : undefined;
  };
  return { path: pick('Path'), query: pick('Query'), body: pick('Body') };
});

/** Query parameters as sent: a name given more than once holds each of its values. */
/**
 * The names of the query parameters whose percent-escapes spell no UTF-8: read, their bytes
 * turned into U+FFFD, which is not what was sent (see `parseQuery`).
 */
export const notUtf8 = Symbol('query parameters that are no UTF-8');

export type SentQuery = Record<string, string | string[]> & { [notUtf8]?: string[] };

export interface RawRequest {
  path: Record<string, string>;
  query: SentQuery;
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
  const spec = bundledDocuments[route.api];
  const coerced: Record<string, unknown> = { ...values };
  for (const parameter of route.parameters) {
    if (parameter.in !== where) continue;
    const value = values[parameter.name];
    if (value === undefined || !parameter.schema) continue;
    const schema = resolveRef(spec, parameter.schema as SpecSchema);
    const types = ([] as string[]).concat(schema.type ?? []);
    // An integer past the safe range is read as one, to be refused as too large, unless the
    // parameter may also be text, which keeps every digit (`order_id`).
    const integer = types.includes('integer');
    if (integer && !types.includes('string') && numberText.test(value)) {
      // `limit=1.5` is a number, refused as no integer rather than as no number; so are more
      // digits than a double holds, refused as too large.
      const number = Number(value);
      const overlong = integerText.test(value) && !Number.isFinite(number);
      coerced[parameter.name] = overlong ? Number.MAX_VALUE : number;
    } else if (integer && integerText.test(value) && Number.isSafeInteger(+value)) {
      coerced[parameter.name] = Number(value);
    } else if (types.includes('number') && numberText.test(value)) {
      coerced[parameter.name] = Number(value);
    } else if (types.includes('boolean') && (value === 'true' || value === 'false')) {
      coerced[parameter.name] = value === 'true';
    }
  }
  return coerced;
}

/** The status a refusal takes: 422 where the operation declares it, then 400, else 404. */
function refusalStatus(route: Route, part: 'path' | 'query' | 'body'): number {
  const declared = Object.keys(route.operation.responses);
  if (part === 'body' && declared.includes('422')) return 422;
  if (part !== 'path' && declared.includes('400')) return 400;
  if (declared.includes('422')) return 422;
  return 404;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string cannot be kept as sent: PostgreSQL text holds no NUL, and a lone UTF-16
 * surrogate is no Unicode at all (stored, it would fail or turn into U+FFFD).
 */
function textFault(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must_not_contain_nul';
  if (loneSurrogate.test(text)) return 'must_not_contain_lone_surrogate';
  return undefined;
}

/**
 * The first string, key or value, that cannot be stored as sent, and where it is. A stack,
 * not recursion: whatever the nesting, this cannot overflow.
 */
function textFaultIn(value: unknown): { field: string; code: string } | undefined {
  const pending: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.value === 'string') {
      const code = textFault(next.value);
      if (code) return { field: next.path.join('.'), code };
    } else if (typeof next.value === 'object' && next.value !== null) {
      for (const [key, item] of Object.entries(next.value)) {
        const path = [...next.path, key];
        const code = textFault(key);
        if (code) return { field: path.join('.'), code };
        pending.push({ value: item, path });
      }
    }
  }
  return undefined;
}

/** The body schema of `route` if some object in it bounds its property count. */
const boundedBodySchema = perRoute((route): SpecSchema | undefined => {
  const spec = bundledDocuments[route.api];
  const request = route.operation.requestBody && resolveRef(spec, route.operation.requestBody);
  const root = request?.content?.['application/json']?.schema;
  const seen = new Set<SpecSchema>();
  const pending: SpecSchema[] = root ? [root] : [];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const schema = resolveRef(spec, next);
    if (seen.has(schema)) continue;
    seen.add(schema);
    if (schema.maxProperties !== undefined) return root;
    pending.push(
      ...(schema.oneOf ?? []),
      ...(schema.anyOf ?? []),
      ...(schema.allOf ?? []),
      ...Object.values(schema.properties ?? {}),
      ...(schema.items ? [schema.items] : []),
      ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
    );
  }
  return undefined;
});

/**
 * The generated schemas do not carry `maxProperties`: it is read from the bundled spec,
 * following the body's schema wherever the body has an object.
 */
function propertyCountFault(route: Route, body: unknown): Record<string, string[]> | undefined {
  const root = boundedBodySchema(route);
  if (!root) return undefined;
  const spec = bundledDocuments[route.api];
  const pending: { schema: SpecSchema; value: unknown; path: string[] }[] = [
    { schema: root, value: body, path: [] },
  ];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value !== 'object' || value === null) continue;
    const schema = resolveRef(spec, next.schema);
    for (const branch of [
      ...(schema.oneOf ?? []),
      ...(schema.anyOf ?? []),
      ...(schema.allOf ?? []),
    ])
      pending.push({ schema: branch, value, path });
    if (Array.isArray(value)) {
      if (schema.items)
        for (const item of value) pending.push({ schema: schema.items, value: item, path });
      continue;
    }
    const keys = Object.keys(value);
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
      return { [path.join('.') || 'body']: [`more_than_${schema.maxProperties}_properties`] };
    }
    for (const key of keys) {
      // Own keys only: a body key such as `__proto__` names no schema of the spec.
      const property =
        schema.properties && Object.hasOwn(schema.properties, key)
          ? schema.properties[key]
          : typeof schema.additionalProperties === 'object'
            ? schema.additionalProperties
            : undefined;
      if (property) {
        pending.push({
          schema: property,
          value: (value as Record<string, unknown>)[key],
          path: [...path, key],
        });
      }
    }
  }
  return undefined;
}

const jsonMediaType = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** The refusal of a body sent as anything but JSON. */
export function notJson(): HttpError {
  return new HttpError(415, 'A body is sent as application/json', {
    'content-type': ['must_be_application/json'],
  });
}

/**
 * The body of a request as JSON, refused before it is parsed when it is not sent as JSON, is
 * no UTF-8 (decoded, its bytes would turn into U+FFFD: stored, not what was sent) or nests
 * deeper than the spec allows: nothing after this point walks an unbounded depth. A key an
 * object gives twice is refused naming it, as a repeated query parameter is: JSON.parse would
 * keep the last, and which value was meant cannot be told. Only a body of no bytes at all is
 * none: one of whitespace alone is malformed JSON, never read as absent, where an absent body
 * closes every trade or cancels every order.
 */
export function parseBody(
  route: Route,
  bytes: Buffer,
  headers: { 'content-type'?: string; 'content-encoding'?: string },
): unknown {
  if (!route.operation.requestBody || bytes.length === 0) return undefined;
  if (!jsonMediaType.test(headers['content-type'] ?? '')) throw notJson();
  // Read as sent: a body said to be compressed would be read as something it is not. An
  // empty header, or `identity`, says nothing was applied.
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && !/^\s*(identity)?\s*$/i.test(encoding)) {
    throw new HttpError(415, 'A body is sent without a content encoding', {
      'content-encoding': ['not_supported'],
    });
  }
  if (!isUtf8(bytes)) {
    throw new HttpError(refusalStatus(route, 'body'), 'A body is sent as UTF-8', {
      body: ['must_be_utf-8'],
    });
  }
  const text = bytes.toString('utf8');
  const limit = bundledDocuments[route.api].info['x-request-limits']['max-nesting-depth'];
  const { tooDeep, members } = scanJson(text, limit);
  if (tooDeep) {
    throw new HttpError(refusalStatus(route, 'body'), 'Body nested too deeply', {
      body: [`nested_deeper_than_${limit}_levels`],
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'Malformed JSON body');
  }
  if (members > keysHeld(body)) {
    const path = repeatedKeyIn(text) ?? [];
    throw new HttpError(refusalStatus(route, 'body'), 'A key given more than once', {
      [path.length > 0 ? path.join('.') : 'body']: ['given_more_than_once'],
    });
  }
  return body;
}

/** The largest body an operation's interface takes, in bytes. */
export function maxBodyBytes(route: Route): number {
  return bundledDocuments[route.api].info['x-request-limits']['max-body-bytes'];
}

/** A request as the operation's schemas read it: typed, defaults applied, unknown fields dropped. */
export interface ValidRequest {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * The query with one value per name. A parameter of the operation given more than once is
 * refused, naming it: which of its values was meant cannot be told. A repeated name the
 * operation does not take is read as its first value, as any name it does not take is left
 * alone.
 */
function singleValued(route: Route, query: SentQuery): Record<string, string> {
  const single: Record<string, string> = Object.create(null);
  const repeated: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(query)) {
    if (typeof value === 'string') {
      single[name] = value;
    } else if (route.parameters.some((p) => p.in === 'query' && p.name === name)) {
      repeated[name] = ['given_more_than_once'];
    } else if (value[0] !== undefined) {
      single[name] = value[0];
    }
  }
  if (Object.keys(repeated).length > 0) {
    throw new HttpError(refusalStatus(route, 'query'), 'A query parameter given twice', repeated);
  }
  return single;
}

/** Refuses the parameters of the operation that `query` holds as no UTF-8, naming each. */
function refuseUndecodedQuery(route: Route, query: SentQuery): void {
  const taken = (query[notUtf8] ?? []).filter((name) =>
    route.parameters.some((parameter) => parameter.in === 'query' && parameter.name === name),
  );
  if (taken.length === 0) return;
  const errors = Object.fromEntries(taken.map((name) => [name, ['must_be_utf-8']]));
  throw new HttpError(refusalStatus(route, 'query'), 'A query parameter is sent as UTF-8', errors);
}

/**
 * Validates path, query and body against the operation's generated schemas. Throws an
 * HttpError naming each refused field and why, `{errors: {quantity: ["must_be_decimal"]}}`.
 * Returns each part as its schema reads it; a part without a schema as it was sent.
 */
export function validateRequest(route: Route, sent: RawRequest): ValidRequest {
  const schemas = operationSchemas(route);
  refuseUndecodedQuery(route, sent.query);
  const request = { ...sent, query: singleValued(route, sent.query) };
  for (const part of ['path', 'query', 'body'] as const) {
    const fault = textFaultIn(request[part]);
    if (fault) {
      throw new HttpError(refusalStatus(route, part), 'Text that cannot be stored as sent', {
        [fault.field || part]: [fault.code],
      });
    }
  }
  const parameters: Pick<ValidRequest, 'path' | 'query'> = {
    path: request.path,
    query: request.query,
  };
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
    parameters[part] = result.data as Record<string, unknown>;
  }
  const bodySpec = route.operation.requestBody
    ? resolveRef(bundledDocuments[route.api], route.operation.requestBody)
    : undefined;
  if (!bodySpec || !schemas.body) return { ...parameters, body: undefined };
  if (request.body === undefined) {
    if (bodySpec.required) {
      throw new HttpError(refusalStatus(route, 'body'), 'A body is required', {
        body: ['required'],
      });
    }
    return { ...parameters, body: undefined };
  }
  const tooMany = propertyCountFault(route, request.body);
  if (tooMany) throw new HttpError(refusalStatus(route, 'body'), 'Invalid body', tooMany);
  const result = z.safeParse(intendedBranch(schemas.body, request.body), request.body);
  if (!result.success) {
    throw new HttpError(
      refusalStatus(route, 'body'),
      'Invalid body',
      fieldErrors(result.error.issues, request.body, 'body'),
    );
  }
  return { ...parameters, body: result.data };
}
