import type { Middleware } from 'openapi-fetch';
import { type DecimalPlan, normaliseDecimals } from '../decimal/normalise.js';
import { ExchangeKitError, type ResponseIssue, ResponseValidationError } from '../errors.js';
import { parseJson } from '../json/parse.js';
import { requestOf } from './transport.js';

/** A runtime schema as the generated zod schemas provide it. */
export interface ResponseSchema {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> };
  };
}

/** One entry of a generated operations table. */
export interface OperationInfo {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** Name of the response schema in the generated schemas module. */
  readonly response: string | null;
  readonly decimals: DecimalPlan | null;
}

export type OperationTable = Readonly<Record<string, OperationInfo>>;

/** Loads the generated schemas module; called once, on the first response to validate. */
export type SchemaLoader = () => Promise<Readonly<Record<string, unknown>>>;

export interface DecodeOptions {
  /** Check every success body against the spec's schema. On by default. */
  validate?: boolean;
}

const escapePointer = (key: PropertyKey) => String(key).replaceAll('~', '~0').replaceAll('/', '~1');

function issuesOf(schema: ResponseSchema, value: unknown): ResponseIssue[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  return (result.error?.issues ?? []).map((issue) => ({
    pointer: issue.path.map((key) => `/${escapePointer(key)}`).join(''),
    message: issue.message,
  }));
}

/**
 * Decodes one success body the way every call does: lossless JSON, validation against the
 * spec, decimals normalised to canonical strings. Throws ResponseValidationError.
 */
export function decodeBody(
  text: string,
  operation: Pick<OperationInfo, 'decimals'>,
  context: { method: string; path: string; status: number; schema?: ResponseSchema | undefined },
): unknown {
  const request = { method: context.method, path: context.path };
  let value: unknown;
  try {
    value = text === '' ? undefined : parseJson(text);
  } catch {
    throw new ResponseValidationError(request, context.status, [
      { pointer: '', message: 'body is not valid JSON' },
    ]);
  }
  if (context.schema) {
    const issues = issuesOf(context.schema, value);
    if (issues.length > 0) throw new ResponseValidationError(request, context.status, issues);
  }
  if (operation.decimals) {
    try {
      normaliseDecimals(value, operation.decimals);
    } catch (error) {
      if (!(error instanceof ExchangeKitError)) throw error;
      throw new ResponseValidationError(request, context.status, [
        { pointer: '', message: error.message },
      ]);
    }
  }
  return value;
}

function pathOf(url: string): string {
  const { pathname, search } = new URL(url);
  return pathname + search;
}

/**
 * openapi-fetch middleware that decodes every JSON success body with decodeBody and hands
 * openapi-fetch the result. Error bodies pass untouched: the caller turns them into typed errors.
 */
export function decodingMiddleware(
  table: OperationTable,
  loadSchemas: SchemaLoader,
  options: DecodeOptions = {},
): Middleware {
  const byRoute = new Map(
    Object.values(table).map((operation) => [`${operation.method} ${operation.path}`, operation]),
  );
  const validate = options.validate ?? true;
  let schemas: Promise<Readonly<Record<string, unknown>>> | undefined;
  return {
    async onResponse({ request, response, schemaPath }) {
      const operation = byRoute.get(`${request.method} ${schemaPath}`);
      if (!operation || !response.ok || !response.headers.get('content-type')?.includes('json'))
        return undefined;
      // The transport already read the path off the URL; a fetch of the caller's own has not.
      const path = requestOf(response)?.path ?? pathOf(request.url);
      let schema: ResponseSchema | undefined;
      if (validate && operation.response) {
        schemas ??= loadSchemas();
        schema = (await schemas)[operation.response] as ResponseSchema | undefined;
      }
      const value = decodeBody(await response.text(), operation, {
        method: request.method,
        path,
        status: response.status,
        schema,
      });
      // openapi-fetch parses the body itself: the decoded value goes back as JSON, every
      // decimal already a string.
      return new Response(JSON.stringify(value) ?? null, response);
    },
  };
}
