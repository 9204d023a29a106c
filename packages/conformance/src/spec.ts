import exchangeSpec from '@exchange-kit/contract/exchange/openapi.json' with { type: 'json' };
import partnerSpec from '@exchange-kit/contract/partner/openapi.json' with { type: 'json' };

export type Api = 'exchange' | 'partner';

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
  api: Api;
  method: string;
  /** Path template of the spec, for example `/orders/{order_id}/cancel`. */
  path: string;
  tags: string[];
  /** Pointer of the operation in its document, for schema references. */
  pointer: string;
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
  authPayload?: string;
}

export const documents: Record<Api, Schema> = {
  exchange: exchangeSpec as Schema,
  partner: partnerSpec as Schema,
};

const methods = ['get', 'put', 'post', 'delete', 'patch'];

/** A path segment of a `#/...` pointer, escaped for JSON pointer and for the URI fragment. */
export function escapePointer(segment: string): string {
  return encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));
}

/** Follows a local `$ref` (the bundled documents hold no other kind). */
export function deref<T>(api: Api, node: T): T {
  let current: unknown = node;
  for (let hops = 0; hops < 16; hops++) {
    const ref = (current as { $ref?: unknown } | null)?.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return current as T;
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (value, segment) =>
          (value as Record<string, unknown> | undefined)?.[
            segment.replaceAll('~1', '/').replaceAll('~0', '~')
          ],
        documents[api],
      );
  }
  throw new Error(`Reference cycle at ${JSON.stringify(node)}`);
}

function collect(api: Api): Operation[] {
  const operations: Operation[] = [];
  const paths = documents[api].paths as Record<string, Record<string, Record<string, unknown>>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of methods) {
      const raw = item[method];
      if (!raw) continue;
      const responses: Record<string, ResponseObject> = {};
      for (const [status, response] of Object.entries(raw.responses as Record<string, unknown>)) {
        responses[status] = deref(api, response) as ResponseObject;
      }
      operations.push({
        operationId: raw.operationId as string,
        api,
        method: method.toUpperCase(),
        path,
        tags: (raw.tags as string[] | undefined) ?? [],
        pointer: `#/paths/${escapePointer(path)}/${method}`,
        requestBody: deref(api, raw.requestBody) as Operation['requestBody'],
        responses,
        security: (raw.security ?? documents[api].security) as Operation['security'],
        authPayload: raw['x-auth-payload'] as string | undefined,
      });
    }
  }
  return operations;
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
  const paths = documents[op.api].paths as Record<
    string,
    Record<string, { requestBody?: { $ref?: string } }>
  >;
  const raw = paths[op.path]?.[op.method.toLowerCase()]?.requestBody;
  const base = raw?.$ref ?? `${op.pointer}/requestBody`;
  return `${base}/content/${escapePointer('application/json')}/schema`;
}

/** The operation a request names, by method and path (concrete paths before templates). */
export function findOperation(method: string, pathname: string): Operation | undefined {
  const candidates = [...operations.values()].filter((op) => op.method === method.toUpperCase());
  const concrete = candidates.find((op) => op.path === pathname);
  if (concrete) return concrete;
  // The template with the most literal text wins: /orders/client:{id} before /orders/{id}.
  const literal = (op: Operation) => op.path.replace(/\{[^}]+\}/g, '').length;
  return [...candidates]
    .sort((a, b) => literal(b) - literal(a))
    .find((op) => {
      const pattern = op.path
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\\?\{[^}]+\\?\}/g, '[^/]+');
      return new RegExp(`^${pattern}$`).test(pathname);
    });
}
