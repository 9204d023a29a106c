import type { Middleware } from 'openapi-fetch';
import { type DecimalPlan, normaliseDecimals } from '../decimal/normalise.js';
import { InvalidDecimalError, type ResponseIssue, ResponseValidationError } from '../errors.js';
import { parseJson } from '../json/parse.js';
import { requestOf } from './transport.js';

/** One issue as zod reports it, with the fields its codes carry. */
export interface SchemaIssue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
  code?: string;
  expected?: unknown;
  values?: readonly unknown[];
  format?: string;
  pattern?: string;
  origin?: string;
  minimum?: unknown;
  maximum?: unknown;
  keys?: readonly string[];
}

/** A runtime schema as the generated zod schemas provide it. */
export interface ResponseSchema {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: ReadonlyArray<SchemaIssue> };
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
  /** Fields whose values no error may show, the contract's `secretFields`. */
  secretFields?: readonly string[] | undefined;
}

const escapePointer = (key: PropertyKey) => String(key).replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * What the spec wanted, in words. zod's mini build words every message "Invalid input", so it
 * is read off the issue's code and fields, the message kept only for a code not known here.
 */
function expectedOf(issue: SchemaIssue): string {
  if (typeof issue.expected === 'string') return issue.expected;
  if (issue.values) return `one of ${JSON.stringify(issue.values)}`;
  const unit = issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : '';
  switch (issue.code) {
    case 'invalid_format':
      return issue.format === 'regex' ? `text matching ${issue.pattern}` : `a ${issue.format}`;
    case 'too_big':
      return `at most ${issue.maximum}${unit}`;
    case 'too_small':
      return `at least ${issue.minimum}${unit}`;
    case 'unrecognized_keys':
      return `no key ${issue.keys?.join(', ')}`;
    case 'invalid_union':
      return 'one of the shapes the spec allows';
    default:
      return issue.message;
  }
}

const pointerOf = (path: ReadonlyArray<PropertyKey>) =>
  path.map((key) => `/${escapePointer(key)}`).join('');

/** JSON of what came, cut short: enough to see it, never a whole body. */
function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The value found at a path; `nothing` for a missing one. */
function receivedAt(
  value: unknown,
  path: ReadonlyArray<PropertyKey>,
  secrets: ReadonlySet<string>,
) {
  let found = value;
  for (const key of path) {
    // A secret the server sent (a session_secret) must not reach a message or a log.
    if (secrets.has(String(key))) return '[redacted]';
    found = found !== null && typeof found === 'object' ? (found as never)[key] : undefined;
  }
  return found === undefined ? 'nothing' : shown(found);
}

const noSecrets: ReadonlySet<string> = new Set();

function issuesOf(
  schema: ResponseSchema,
  value: unknown,
  secrets: ReadonlySet<string>,
): ResponseIssue[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  return (result.error?.issues ?? []).map((issue) => ({
    pointer: pointerOf(issue.path),
    message: issue.message,
    expected: expectedOf(issue),
    received: receivedAt(value, issue.path, secrets),
  }));
}

// Module level, not a closure per body: a success, the usual answer, allocates nothing for it.
const failure = (
  context: { method: string; path: string; status: number },
  issues: ResponseIssue[],
) =>
  new ResponseValidationError(
    { method: context.method, path: context.path },
    context.status,
    issues,
  );

/**
 * Decodes one success body the way every call does: lossless JSON, validation against the
 * spec, decimals normalised to canonical strings. Throws ResponseValidationError.
 */
export function decodeBody(
  text: string,
  operation: Pick<OperationInfo, 'decimals'>,
  context: {
    method: string;
    path: string;
    status: number;
    schema?: ResponseSchema | undefined;
    /** Names of fields whose values no error may show (the contract's `secretFields`). */
    secrets?: ReadonlySet<string> | undefined;
  },
): unknown {
  const secrets = context.secrets ?? noSecrets;
  let value: unknown;
  try {
    value = text === '' ? undefined : parseJson(text);
  } catch {
    throw failure(context, [
      {
        pointer: '',
        message: 'body is not valid JSON',
        expected: 'a JSON body',
        received: shown(text),
      },
    ]);
  }
  if (context.schema) {
    const issues = issuesOf(context.schema, value, secrets);
    if (issues.length > 0) throw failure(context, issues);
  }
  if (operation.decimals) {
    try {
      normaliseDecimals(value, operation.decimals);
    } catch (error) {
      if (!(error instanceof InvalidDecimalError)) throw error;
      // The field comes as `$.models.0.price`.
      const path = error.field.split('.').slice(1);
      throw failure(context, [
        {
          pointer: pointerOf(path),
          message: error.message,
          expected: 'a decimal number',
          received: receivedAt(value, path, secrets),
        },
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
  const secrets = new Set(options.secretFields);
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
        secrets,
      });
      // openapi-fetch parses the body itself: the decoded value goes back as JSON, every
      // decimal already a string.
      return new Response(JSON.stringify(value) ?? null, response);
    },
  };
}
