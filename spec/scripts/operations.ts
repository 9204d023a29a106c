/**
 * The operations table, derived from a bundled spec: for each operation its method, path
 * template, success and documented error statuses, security scheme and JWT payload, the
 * permission a delegated call needs, the codes its 422 names per field, the name of its
 * response schema, where its decimals are and the names of its query parameters; plus the names of the fields the spec marks
 * `x-secret`.
 */
import {
  type OpenApiDocument,
  operationsOf,
  resolveRef,
  type SpecParameter,
} from '@exchange-kit/contract/spec-reader';

type Json = Record<string, unknown>;

/** Where the decimals of a value are: `true` marks a decimal, objects descend. */
export type DecimalPlan = true | { [key: string]: DecimalPlan };

const decimalSchemas = new Set([
  '#/components/schemas/DecimalLike',
  '#/components/schemas/DecimalString',
]);

const resolve = (document: Json, ref: string): Json =>
  resolveRef(document as unknown as OpenApiDocument, { $ref: ref }) as Json;

function merge(a: DecimalPlan | undefined, b: DecimalPlan | undefined): DecimalPlan | undefined {
  if (!a) return b;
  if (!b) return a;
  if (a === true || b === true) return true;
  const merged: { [key: string]: DecimalPlan } = { ...a };
  for (const [key, plan] of Object.entries(b)) {
    const next = merge(merged[key], plan);
    if (next) merged[key] = next;
  }
  return merged;
}

/** The decimal plan of a schema; undefined when it holds no decimal. */
export function decimalPlan(
  document: Json,
  schema: Json | undefined,
  seen = new Set<string>(),
): DecimalPlan | undefined {
  if (!schema) return undefined;
  const ref = schema.$ref as string | undefined;
  if (ref) {
    if (decimalSchemas.has(ref)) return true;
    if (seen.has(ref)) return undefined;
    return decimalPlan(document, resolve(document, ref), new Set([...seen, ref]));
  }
  let plan: DecimalPlan | undefined;
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    for (const branch of (schema[key] as Json[] | undefined) ?? [])
      plan = merge(plan, decimalPlan(document, branch, seen));
  }
  const fields: { [key: string]: DecimalPlan } = {};
  for (const [name, property] of Object.entries(
    (schema.properties as Record<string, Json>) ?? {},
  )) {
    const inner = decimalPlan(document, property, seen);
    if (inner) fields[name] = inner;
  }
  (schema.prefixItems as Json[] | undefined)?.forEach((item, index) => {
    const inner = decimalPlan(document, item, seen);
    if (inner) fields[String(index)] = inner;
  });
  const items = schema.items as Json | undefined;
  const additional = schema.additionalProperties;
  const each = merge(
    items ? decimalPlan(document, items, seen) : undefined,
    typeof additional === 'object' ? decimalPlan(document, additional as Json, seen) : undefined,
  );
  if (each) fields['*'] = each;
  return merge(plan, Object.keys(fields).length > 0 ? fields : undefined);
}

function secretFields(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) secretFields(item, found);
  else if (node && typeof node === 'object') {
    for (const [name, property] of Object.entries((node as Json).properties ?? {})) {
      if ((property as Json)['x-secret'] === true) found.add(name);
    }
    for (const value of Object.values(node)) secretFields(value, found);
  }
  return found;
}

/**
 * The codes a 422 of an operation names, field by field, whatever their source (`x-error-codes`
 * groups them by where they come from: the conventions, or the sandbox).
 */
function errorCodesOf(operation: Json): Record<string, string[]> {
  const bySource = (operation['x-error-codes'] ?? {}) as Record<string, Record<string, string[]>>;
  const merged: Record<string, string[]> = {};
  for (const fields of Object.values(bySource)) {
    for (const [field, codes] of Object.entries(fields)) {
      merged[field] = [...new Set([...(merged[field] ?? []), ...codes])];
    }
  }
  return merged;
}

/** The names of an operation's query parameters: a call with another is a mistake. */
const queryNames = (parameters: SpecParameter[]) =>
  parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

/** The TypeScript module of the operations table; `schemasModule` is the zod module's import path. */
export function operationsModule(
  document: Json,
  schemasModule: string,
  exportedSchemas: Set<string>,
): string {
  const entries: string[] = [];
  // Many operations share a plan (every order answer): each distinct plan is written once.
  const plans = new Map<string, string>();
  const planRef = (plan: DecimalPlan | undefined) => {
    if (!plan) return 'null';
    const json = JSON.stringify(plan);
    if (!plans.has(json)) plans.set(json, `plan${plans.size + 1}`);
    return plans.get(json) as string;
  };
  const spec = document as unknown as OpenApiDocument;
  for (const { operationId: id, method, path, operation, parameters } of operationsOf(spec)) {
    const responses = operation.responses as Record<string, Json>;
    const status = Object.keys(responses).find((code) => code.startsWith('2')) ?? '200';
    const response = resolveRef(spec, responses[status] as Json);
    const schema = (response.content as Record<string, Json> | undefined)?.['application/json']
      ?.schema as Json | undefined;
    const zod = `z${pascal(id)}Response`;
    const hasSchema = exportedSchemas.has(zod);
    const decimals = decimalPlan(document, schema);
    const body = resolveRef(spec, operation.requestBody as Json | undefined);
    const bodySchema = (body?.content as Record<string, Json> | undefined)?.['application/json']
      ?.schema as Json | undefined;
    const requestDecimals = decimalPlan(document, bodySchema);
    const statuses = Object.keys(responses)
      .filter((code) => /^\d{3}$/.test(code))
      .map(Number);
    const security = (operation.security ?? document.security) as
      | Array<Record<string, unknown>>
      | undefined;
    const scheme = security?.flatMap((requirement) => Object.keys(requirement))[0];
    const text = (value: unknown) => (typeof value === 'string' ? `'${value}'` : 'null');
    entries.push(
      [
        `  ${id}: {`,
        `    method: '${method}',`,
        `    path: '${path}',`,
        `    status: ${status},`,
        `    successes: [${statuses.filter((code) => code < 300).join(', ')}],`,
        `    errors: [${statuses.filter((code) => code >= 400).join(', ')}],`,
        `    security: ${text(scheme)},`,
        `    authPayload: ${text(operation['x-auth-payload'])},`,
        `    permission: ${text(operation['x-permission'])},`,
        `    errorCodes: ${JSON.stringify(errorCodesOf(operation))},`,
        `    response: ${hasSchema ? `'${zod}'` : 'null'},`,
        `    decimals: ${planRef(decimals)},`,
        `    requestDecimals: ${planRef(requestDecimals)},`,
        `    query: ${JSON.stringify(queryNames(parameters))},`,
        '  },',
      ].join('\n'),
    );
  }
  const secrets = [...secretFields(document)].sort();
  return [
    '// Generated by `pnpm codegen` from spec/. Do not edit.',
    '',
    "import { loadCompiled } from '../load-schemas.js';",
    '',
    '/**',
    ' * The response schemas, loaded on first use so that bundles which never validate skip them,',
    ' * and compiled on Node.',
    ' */',
    `export const loadSchemas = () => loadCompiled(() => import('${schemasModule}'));`,
    '',
    ...[...plans].map(([json, name]) => `const ${name} = ${json} as const;`),
    '',
    'export const operationTable = {',
    ...entries,
    '} as const;',
    '',
    '/** Names of the fields the spec marks `x-secret`: redacted wherever a body is logged. */',
    `export const secretFields: readonly string[] = ${JSON.stringify(secrets)};`,
    '',
  ].join('\n');
}
