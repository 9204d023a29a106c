import { type ApiName, bundledDocuments } from '@exchange-kit/contract/documents';
import { operationTable as exchangeOperations } from '@exchange-kit/contract/exchange';
import { operationTable as partnerOperations } from '@exchange-kit/contract/partner';
import {
  escapePointer,
  operationsOf,
  resolveRef,
  routeMatcher,
} from '@exchange-kit/contract/spec-reader';
import { type CallSigning, callSigningOf, type OperationAuth } from '@exchange-kit/core/auth';

export type { ApiName };

/** A JSON Schema of the bundled specs (OpenAPI 3.1, so JSON Schema 2020-12). */
export type Schema = Record<string, unknown>;

export interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

export interface ResponseObject {
  description?: string;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId: string;
  api: ApiName;
  method: string;
  /** Path template of the spec, for example `/orders/{order_id}/cancel`. */
  path: string;
  tags: string[];
  /** Pointer of the operation in its document, for schema references. */
  pointer: string;
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
  /** How a call of it is signed, from the contract's operations table. */
  signing: CallSigning;
}

const operationTables: Record<ApiName, Record<string, OperationAuth>> = {
  exchange: exchangeOperations,
  partner: partnerOperations,
};

export { escapePointer };

/** Follows a local `$ref` (the bundled documents hold no other kind). */
export function deref<T>(api: ApiName, node: T): T {
  return resolveRef(bundledDocuments[api], node);
}

function collect(api: ApiName): Operation[] {
  const document = bundledDocuments[api];
  return operationsOf(document).map(({ operationId, method, path, pointer, operation: raw }) => {
    const responses: Record<string, ResponseObject> = {};
    for (const [status, response] of Object.entries(raw.responses as Record<string, unknown>)) {
      responses[status] = deref(api, response) as ResponseObject;
    }
    return {
      operationId,
      api,
      method,
      path,
      tags: (raw.tags as string[] | undefined) ?? [],
      pointer,
      requestBody: deref(api, raw.requestBody) as Operation['requestBody'],
      responses,
      signing: callSigningOf(operationTables[api][operationId] ?? {}),
    };
  });
}

/** Every operation of both specs, by operationId. */
export const operations: ReadonlyMap<string, Operation> = new Map(
  [...collect('exchange'), ...collect('partner')].map((operation) => [
    operation.operationId,
    operation,
  ]),
);

export function operation(operationId: string): Operation {
  const found = operations.get(operationId);
  if (!found) throw new Error(`No operation ${operationId} in the specs`);
  return found;
}

/** The JSON schema of an operation's request body (resolved), if it has one. */
export function requestSchema(operationId: string): Schema | undefined {
  const op = operation(operationId);
  return deref(op.api, op.requestBody?.content?.['application/json']?.schema);
}

/** The examples of an operation's request body, by name (`example` under the name "default"). */
export function requestExamples(operationId: string): Record<string, unknown> {
  const media = operation(operationId).requestBody?.content?.['application/json'];
  const examples: Record<string, unknown> = {};
  if (media?.example !== undefined) examples.default = media.example;
  for (const [name, example] of Object.entries(media?.examples ?? {})) {
    examples[name] = example.value;
  }
  return examples;
}

/** Fills a path template: `/orders/{order_id}` with `{ order_id: 5 }` gives `/orders/5`. */
export function fillPath(
  template: string,
  parameters: Record<string, string | number> = {},
): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = parameters[name];
    if (value === undefined) throw new Error(`Path parameter ${name} missing for ${template}`);
    return encodeURIComponent(String(value));
  });
}

/** The `#/...` pointer of an operation's JSON request body schema, for validators. */
export function requestSchemaPointer(operationId: string): string | undefined {
  const op = operation(operationId);
  if (!op.requestBody?.content?.['application/json']) return undefined;
  const paths = bundledDocuments[op.api].paths as Record<
    string,
    Record<string, { requestBody?: { $ref?: string } }>
  >;
  const raw = paths[op.path]?.[op.method.toLowerCase()]?.requestBody;
  const base = raw?.$ref ?? `${op.pointer}/requestBody`;
  return `${base}/content/${escapePointer('application/json')}/schema`;
}

const findRoute = routeMatcher([...operations.values()]);

/** The operation a request names, by method and path (concrete paths before templates). */
export function findOperation(method: string, pathname: string): Operation | undefined {
  const found = findRoute(method, pathname);
  return found.kind === 'matched' ? found.route : undefined;
}
