import createClient, { type Client } from 'openapi-fetch';
import type { DecimalInput, DecimalObject } from '../decimal/canonical.js';
import { toDecimalString } from '../decimal/canonical.js';
import type { DecimalPlan } from '../decimal/normalise.js';
import { type ApiErrorDetails, type CallError, errorFromResponse } from '../errors.js';
import { refuseUnknownArguments } from './call-arguments.js';
import { callSigningOf, type OperationAuth } from './call-signing.js';
import { callTargets } from './call-target.js';
import {
  decodeBody,
  decodingMiddleware,
  type OperationInfo,
  type ResponseSchema,
  type SchemaLoader,
} from './decode.js';
import { defaultRateLimit, type RateLimit } from './rate-limiter.js';
import {
  createSender,
  type RetryOptions,
  requestOf,
  type SignOptions,
  signRequestAs,
  type TransportHooks,
  type TransportOptions,
  transportOf,
} from './transport.js';

/** Options every client takes for how it talks to the server. */
export interface ConnectionOptions {
  /**
   * A fetch to send requests with. Without one, Node sends through node:http with a keep-alive
   * agent, and browsers and edge runtimes through the global fetch.
   */
  fetch?: typeof globalThis.fetch;
  /** Per attempt, in ms, until the whole answer is in. Default 30 000. */
  timeoutMs?: number;
  /**
   * Retries of 429 and 503 for idempotent calls, and resends of any call refused for its nonce;
   * `false` turns both off.
   */
  retry?: RetryOptions | false;
  /** Client-side rate limit per token: `true` for 600 calls per 5 minutes. Off by default. */
  rateLimit?: boolean | RateLimit;
  /** Check every response against the spec. On by default. */
  validateResponses?: boolean;
  /** Logging hooks; credentials arrive redacted. */
  hooks?: TransportHooks;
}

/**
 * Options of one call, the trailing argument of every client method (as stripe-node's
 * RequestOptions): they apply to that call only.
 */
export interface PerCallOptions {
  /**
   * Stops the call: it rejects with a TransportError whose `reason` is `'aborted'` and whose
   * `cause` is the signal's reason, and nothing is retried or resent after the abort.
   */
  signal?: AbortSignal | undefined;
  /** Per attempt, in ms, until the whole answer is in; in place of the client's `timeoutMs`. */
  timeoutMs?: number | undefined;
  /** `false`: no retry nor resend of this call; options: laid over the client's `retry`. */
  retry?: RetryOptions | false | undefined;
}

/** An operation of a generated table, with where the decimals of its request body are. */
export interface ClientOperation extends OperationInfo, OperationAuth {
  readonly requestDecimals: DecimalPlan | null;
  /** The names of its query parameters. */
  readonly query: readonly string[];
}

export interface ApiClientConfig extends ConnectionOptions {
  baseUrl: string;
  operations: Readonly<Record<string, ClientOperation>>;
  /** The generated schemas module, loaded on the first response to validate. */
  loadSchemas: SchemaLoader;
  authenticate?: TransportOptions['authenticate'];
  /** Key of the shared rate-limit window, the token id. */
  rateLimitKey?: string;
  /** Fields whose values no error may show, the contract's `secretFields`. */
  secretFields?: readonly string[];
  /** The more precise error a 401 of this interface may name (`oauthRequestRefusal`). */
  unauthorized?: (details: ApiErrorDetails) => CallError | undefined;
}

type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** What a call of an operation takes: its path and query parameters and its JSON body. */
export type CallInput<Operation> = (Operation extends { parameters: { path: infer Path } }
  ? { path: Path }
  : { path?: undefined }) &
  (Operation extends { parameters: { query?: infer Query } } ? { query?: Query } : unknown) &
  (Operation extends { requestBody: infer Body }
    ? { body: JsonContent<Body> }
    : Operation extends { requestBody?: infer Body }
      ? { body?: JsonContent<Body> }
      : unknown) & {
    /** A 404 means the order is not live (edit, update_tpsl, cancel). */
    notFound?: 'order-not-live';
    /** Sign without a nonce: only a `POST /orders` whose body carries a `client_order_id` may. */
    withoutNonce?: boolean;
  };

type Success<Responses> = Responses extends { 200: infer Ok }
  ? Ok
  : Responses extends { 201: infer Created }
    ? Created
    : Responses extends { 202: infer Accepted }
      ? Accepted
      : never;

/** What a successful call of an operation answers (200, 201 or 202), decoded. */
export type CallData<Operation> = Operation extends { responses: infer Responses }
  ? JsonContent<Success<Responses>> extends never
    ? undefined
    : JsonContent<Success<Responses>>
  : undefined;

/**
 * Calls one operation of the generated table by its operationId: the decoded data of a
 * success, or a typed error. Request decimals go out as canonical strings.
 */
export type Call<Operations> = <Name extends keyof Operations & string>(
  operation: Name,
  ...args: Partial<CallInput<Operations[Name]>> extends CallInput<Operations[Name]>
    ? [input?: CallInput<Operations[Name]>, options?: PerCallOptions]
    : [input: CallInput<Operations[Name]>, options?: PerCallOptions]
) => Promise<CallData<Operations[Name]>>;

export interface Api<Paths extends {}, Operations> {
  /** The typed openapi-fetch client, signed and decoded the same way. */
  raw: Client<Paths>;
  call: Call<Operations>;
}

/**
 * A client's two ways to call: `call` sends straight through the transport and decodes the
 * answer once; `raw` is openapi-fetch over the same transport, with decoding middleware.
 */
export function createApi<Paths extends {}, Operations>(
  config: ApiClientConfig,
): Api<Paths, Operations> {
  const rateLimit = config.rateLimit === true ? defaultRateLimit : config.rateLimit;
  const send = createSender({
    ...config,
    rateLimit: rateLimit && { ...rateLimit, key: config.rateLimitKey ?? config.baseUrl },
  });
  let schemas: ReturnType<SchemaLoader> | undefined;
  // Once in, the schemas are used as they are: a call then decodes in the turn it is answered.
  let loaded: Awaited<ReturnType<SchemaLoader>> | undefined;
  const loadSchemas = () =>
    (schemas ??= config.loadSchemas().then((module) => {
      loaded = module;
      return module;
    }));
  const validate = config.validateResponses ?? true;
  const secrets = new Set(config.secretFields);
  const targetOf = callTargets(
    config.baseUrl,
    Object.values(config.operations).map((operation) => operation.path),
  );
  const raw = createClient<Paths>({ baseUrl: config.baseUrl, fetch: transportOf(send) });
  const byRoute = new Map(
    Object.values(config.operations).map((operation) => [
      `${operation.method} ${operation.path}`,
      operation,
    ]),
  );
  raw.use(
    {
      // A raw call is signed as its operation's row says, as a typed call is.
      onRequest({ request, schemaPath }) {
        const operation = byRoute.get(`${request.method} ${schemaPath}`);
        const sign = operation && signOptionsOf(operation);
        if (sign) signRequestAs(request, sign);
        return undefined;
      },
    },
    decodingMiddleware(config.operations, loadSchemas, {
      validate,
      secretFields: config.secretFields,
    }),
  );

  async function call(
    name: string,
    input: Record<string, unknown> = {},
    options?: PerCallOptions,
  ): Promise<unknown> {
    const operation = config.operations[name] as ClientOperation;
    const { method } = operation;
    refuseUnknownArguments(name, operation.query, input, options);
    const { url, path } = targetOf(operation.path, input);
    // Without a body, JSON.stringify gives undefined.
    const body = JSON.stringify(encodeDecimals(input.body, operation.requestDecimals)) as
      | string
      | undefined;
    // PerCallOptions are the sender's own fields: signal, timeoutMs, retry.
    const answer = await send({
      ...options,
      method,
      url,
      path,
      body,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      sign: signOptionsOf(operation, input.withoutNonce === true),
    });
    const request = { method, path, operationId: name };
    const { status, text } = answer;
    if (status < 200 || status > 299) {
      let details: unknown = text || undefined;
      try {
        details = JSON.parse(text);
      } catch {}
      throw errorFromResponse(
        status,
        { request, body: details, headers: answer.headers },
        {
          notFound: input.notFound as 'order-not-live' | undefined,
          authPayload: operation.authPayload,
          unauthorized: config.unauthorized,
        },
      );
    }
    const schema =
      validate && operation.response
        ? ((loaded ?? (await loadSchemas()))[operation.response] as ResponseSchema | undefined)
        : undefined;
    return decodeBody(text, operation, { method, path, status, schema, secrets });
  }

  return { raw, call: call as Call<Operations> };
}

/** A typed openapi-fetch client whose requests go through the shared transport and decoding. */
export function createApiClient<Paths extends {}>(config: ApiClientConfig): Client<Paths> {
  return createApi<Paths, unknown>(config).raw;
}

/** The data of a successful call, or its typed error. */
export function unwrap<T>(
  result: { data?: T; error?: unknown; response: Response },
  options: {
    notFound?: 'order-not-live';
    unauthorized?: (details: ApiErrorDetails) => CallError | undefined;
  } = {},
): T {
  const { response } = result;
  if (!response.ok) {
    const request = requestOf(response) ?? {
      method: 'unknown',
      path: new URL(response.url || 'http://x/').pathname,
    };
    const error: CallError = errorFromResponse(
      response.status,
      { request, body: result.error, headers: response.headers },
      options,
    );
    throw error;
  }
  return result.data as T;
}

type Plan = DecimalPlan | null;

/**
 * A request body type with its decimal fields widened to what the user may give: a number,
 * a decimal string or a Decimal. `P` is the generated plan of where the decimals are.
 */
export type WithDecimalInputs<T, P> = P extends true
  ? T extends string
    ? DecimalInput
    : T
  : P extends Record<string, unknown>
    ? T extends readonly (infer Item)[]
      ? WithDecimalInputs<Item, P['*']>[]
      : T extends object
        ? { [K in keyof T]: K extends keyof P ? WithDecimalInputs<T[K], P[K]> : T[K] }
        : T
    : T;

/** Writes every decimal of a request body as its canonical string; errors name the field. */
export function encodeDecimals<T>(value: T, plan: Plan, path = ''): T {
  if (!plan || value === null || value === undefined) return value;
  if (plan === true) {
    return toDecimalString(value as unknown as number | string | DecimalObject, path) as T;
  }
  if (typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out = (Array.isArray(value) ? [...value] : { ...source }) as Record<string, unknown>;
  for (const key in plan) {
    const inner = plan[key] as DecimalPlan;
    const keys = key === '*' ? Object.keys(source) : key in source ? [key] : [];
    for (const name of keys) {
      out[name] = encodeDecimals(source[name], inner, path ? `${path}.${name}` : name);
    }
  }
  return out as T;
}

/** How a call of `operation` is signed; `undefined` for the common case. */
function signOptionsOf(operation: OperationAuth, withoutNonce = false): SignOptions | undefined {
  const delegate = callSigningOf(operation) === 'delegated';
  if (!delegate && !withoutNonce) return undefined;
  return { ...(delegate ? { delegate } : {}), ...(withoutNonce ? { withoutNonce } : {}) };
}
