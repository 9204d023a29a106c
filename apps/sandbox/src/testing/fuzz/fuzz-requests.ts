/**
 * One arbitrary request per operation of both interfaces, built by walking the bundled specs
 * with the contract's spec reader: its path and query parameters, its body, and how it is
 * authenticated. Nothing here names an operation or a field.
 */
import { type ApiName, bundledDocuments } from '@exchange-kit/contract/documents';
import { operationTable as exchangeOperations } from '@exchange-kit/contract/exchange';
import { operationTable as partnerOperations } from '@exchange-kit/contract/partner';
import { operationsOf, resolveRef, type SpecOperation } from '@exchange-kit/contract/spec-reader';
import { type CallSigning, callSigningOf, type OperationAuth } from '@exchange-kit/core/auth';
import fc from 'fast-check';
import {
  hostileBodyText,
  hostileContentTypes,
  hostilePathSegment,
  hostileStrings,
} from './hostile-values.js';
import { type FuzzSchema, nodePaths, schemaValue, type ValueOptions } from './schema-values.js';

/**
 * How a request proves who sends it: not at all, signed as the operation's security asks
 * (the demo token, its partner delegation, or a user session), or with a forged credential.
 */
export type Credential = 'anonymous' | 'signed' | 'forged';

export interface FuzzRequest {
  api: ApiName;
  /** How the contract's operations table says a caller signs the operation. */
  signing: CallSigning;
  operationId: string;
  method: string;
  /** Pathname and query string, percent-encoded exactly as sent and signed. */
  url: string;
  credential: Credential;
  /** Absent: no content-type header. */
  contentType?: string;
  /** Absent: no body. */
  body?: string;
}

/** What a fuzzed operation needs to know of the running sandbox. */
export interface FuzzTarget {
  /** Values a parameter or field of this name may take to reach past its lookup. */
  known: Record<string, string>;
}

/** The operation's JSON body schema, if it takes a body. */
export function bodySchemaOf(api: ApiName, operation: SpecOperation): FuzzSchema | undefined {
  const document = bundledDocuments[api];
  const requestBody = operation.operation.requestBody;
  if (!requestBody) return undefined;
  const resolved = resolveRef(
    document,
    requestBody as { content?: Record<string, { schema?: FuzzSchema }> },
  );
  return resolved.content?.['application/json']?.schema;
}

function encodeSegment(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    // A lone surrogate has no UTF-8 form: send the bytes a careless client would.
    return text.replace(/[\ud800-\udfff]/g, '%ED%A0%80').replace(/[^A-Za-z0-9%._~-]/g, '_');
  }
}

/** A JSON text value read back as the text a path or query carries. */
function parameterText(json: string): string {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    return json;
  }
}

/** Broad requests swap hostile values in anywhere; targeted ones at one node only. */
type Mode = 'broad' | 'targeted';

function pathOf(operation: SpecOperation, options: ValueOptions, mode: Mode): fc.Arbitrary<string> {
  const parameters = operation.parameters.filter((parameter) => parameter.in === 'path');
  const values = parameters.map((parameter) =>
    fc.oneof(
      {
        weight: 3,
        arbitrary: schemaValue(
          parameter.schema ?? {},
          { ...options, hostileShare: 0 },
          0,
          parameter.name,
        ).map((json) => encodeSegment(parameterText(json))),
      },
      { weight: mode === 'broad' ? 1 : 0, arbitrary: hostilePathSegment() },
    ),
  );
  return fc
    .tuple(...values)
    .map((texts) =>
      parameters.reduce(
        (path, parameter, index) => path.replace(`{${parameter.name}}`, texts[index] ?? ''),
        operation.path,
      ),
    );
}

// The URL is signed into a header as well: past about 3,000 characters a request's head
// nears the 16 KiB Node's HTTP parser takes, and its bare 431 would hide what the sandbox
// itself does with the value.
const queryHostileStrings = hostileStrings.filter((text) => text.length <= 3_000);

function queryOf(
  operation: SpecOperation,
  options: ValueOptions,
  mode: Mode,
): fc.Arbitrary<string> {
  const parameters = operation.parameters.filter((parameter) => parameter.in === 'query');
  const pairs = parameters.map((parameter) =>
    fc.option(
      fc
        .oneof(
          {
            weight: 3,
            arbitrary: schemaValue(
              parameter.schema ?? {},
              { ...options, hostileShare: 0 },
              0,
              parameter.name,
            ).map(parameterText),
          },
          {
            weight: mode === 'broad' ? 1 : 0,
            arbitrary: fc.constantFrom(...queryHostileStrings),
          },
        )
        .map((value) => `${encodeURIComponent(parameter.name)}=${encodeSegment(value)}`),
      { nil: undefined },
    ),
  );
  if (mode === 'targeted') {
    return fc.tuple(...pairs).map((named) => {
      const all = named.filter((pair): pair is string => pair !== undefined);
      return all.length > 0 ? `?${all.join('&')}` : '';
    });
  }
  // A parameter twice, and one the spec does not name.
  const odd = fc.option(
    fc.constantFrom(...parameters.map((p) => `${p.name}=1`), '__proto__=1', '%00=%00'),
    {
      nil: undefined,
    },
  );
  return fc.tuple(fc.tuple(...pairs), odd).map(([named, extra]) => {
    const all = [...named, extra].filter((pair): pair is string => pair !== undefined);
    return all.length > 0 ? `?${all.join('&')}` : '';
  });
}

/**
 * A body for the operation: from its schema with hostile swaps, a body that is no JSON
 * object, or one past the interface's size bound.
 */
function bodyOf(api: ApiName, schema: FuzzSchema, options: ValueOptions): fc.Arbitrary<string> {
  const limit = bundledDocuments[api].info['x-request-limits']['max-body-bytes'];
  const fromSchema = schemaValue(schema, options);
  const oversize = schemaValue(schema, { ...options, hostileShare: 0 }).map(
    (text) => `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}"padding":"${'x'.repeat(limit)}"}`,
  );
  return fc.oneof(
    { weight: 18, arbitrary: fromSchema },
    { weight: 1, arbitrary: hostileBodyText() },
    { weight: 1, arbitrary: oversize },
  );
}

function contentTypeOf(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 14, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom(...hostileContentTypes) },
  );
}

const operationTables: Record<ApiName, Record<string, OperationAuth>> = {
  exchange: exchangeOperations,
  partner: partnerOperations,
};

interface BodyPart {
  contentType?: string;
  text?: string;
}

interface RequestParts {
  path: string;
  query: string;
  credential: Credential;
  body: BodyPart;
}

function toRequest(api: ApiName, operation: SpecOperation, parts: RequestParts): FuzzRequest {
  const { path, query, credential, body } = parts;
  return {
    api,
    signing: callSigningOf(operationTables[api][operation.operationId] ?? {}),
    operationId: operation.operationId,
    method: operation.method,
    url: path + query,
    credential,
    ...(body.contentType === undefined ? {} : { contentType: body.contentType }),
    ...(body.text === undefined ? {} : { body: body.text }),
  };
}

/**
 * A signed request that is valid but for the body node at `node`: a value that only one
 * check stands between and the store (a bound on one field) is met here, where a broad
 * request is refused for another of its values first. `value` fixes the node's JSON text;
 * absent, it is any hostile value.
 */
export function targetedRequest(
  api: ApiName,
  operation: SpecOperation,
  target: FuzzTarget,
  node: readonly string[],
  value?: string,
): fc.Arbitrary<FuzzRequest> {
  const options: ValueOptions = {
    document: bundledDocuments[api],
    known: target.known,
    hostileShare: 0,
    target: node,
    minimal: true,
    ...(value === undefined ? {} : { targetValue: value }),
  };
  const schema = bodySchemaOf(api, operation) ?? {};
  return fc
    .record({
      path: pathOf(operation, options, 'targeted'),
      query: queryOf(operation, options, 'targeted'),
      credential: fc.constant<Credential>('signed'),
      body: schemaValue(schema, options).map(
        (text): BodyPart => ({ contentType: 'application/json', text }),
      ),
    })
    .map((parts) => toRequest(api, operation, parts));
}

/** The body nodes of an operation a targeted request can aim at. */
export function targetNodes(
  api: ApiName,
  operation: SpecOperation,
): readonly (readonly string[])[] {
  const schema = bodySchemaOf(api, operation);
  return schema ? nodePaths(schema, bundledDocuments[api]) : [];
}

/** Every operation of one interface as an arbitrary request. */
function requestsOf(api: ApiName, target: FuzzTarget): fc.Arbitrary<FuzzRequest>[] {
  const document = bundledDocuments[api];
  const options: ValueOptions = { document, known: target.known, hostileShare: 0.08 };
  return operationsOf(document).map((operation) => {
    const schema = bodySchemaOf(api, operation);
    const noBody: BodyPart = {};
    const broad = fc
      .record({
        path: pathOf(operation, options, 'broad'),
        query: queryOf(operation, options, 'broad'),
        // Mostly signed, so that most requests get past authentication to the checks behind it.
        credential: fc.oneof(
          { weight: 3, arbitrary: fc.constant<Credential>('signed') },
          { weight: 1, arbitrary: fc.constantFrom<Credential>('anonymous', 'forged') },
        ),
        body: schema
          ? fc.record({ contentType: contentTypeOf(), text: bodyOf(api, schema, options) })
          : fc.constant(noBody),
      })
      .map((parts) => toRequest(api, operation, parts));
    const nodes = targetNodes(api, operation);
    if (nodes.length === 0) return broad;
    const targeted = fc
      .constantFrom(...nodes)
      .chain((node) => targetedRequest(api, operation, target, node));
    return fc.oneof(broad, targeted);
  });
}

/** A request to any operation of either interface. */
export function fuzzRequest(target: FuzzTarget): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(...requestsOf('exchange', target), ...requestsOf('partner', target));
}
