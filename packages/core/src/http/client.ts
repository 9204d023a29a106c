import createClient, { type Client } from 'openapi-fetch';
import type { DecimalInput, DecimalObject } from '../decimal/canonical.js';
import { toDecimalString } from '../decimal/canonical.js';
import type { DecimalPlan } from '../decimal/normalise.js';
import { type CallError, errorFromResponse } from '../errors.js';
import { decodingMiddleware, type OperationInfo, type SchemaLoader } from './decode.js';
import type { RateLimit } from './rate-limiter.js';
import { createTransport, type RetryOptions, requestOf, type TransportHooks } from './transport.js';

/** Options every client takes for how it talks to the server. */
export interface ConnectionOptions {
  /** A fetch to send requests with; the global fetch by default. */
  fetch?: typeof globalThis.fetch;
  /** Per attempt, in ms. Default 30 000. */
  timeoutMs?: number;
  /** Retries of 429 and 503 for idempotent calls; `false` turns them off. */
  retry?: RetryOptions | false;
  /** Client-side rate limit per token: `true` for 600 calls per 5 minutes. Off by default. */
  rateLimit?: boolean | RateLimit;
  /** Check every response against the spec. On by default. */
  validateResponses?: boolean;
  /** Logging hooks; credentials arrive redacted. */
  hooks?: TransportHooks;
}

/** An operation of a generated table, with where the decimals of its request body are. */
export interface ClientOperation extends OperationInfo {
  readonly requestDecimals: DecimalPlan | null;
}

export interface ApiClientConfig extends ConnectionOptions {
  baseUrl: string;
  operations: Readonly<Record<string, ClientOperation>>;
  /** The generated schemas module, loaded on the first response to validate. */
  loadSchemas: SchemaLoader;
  authenticate?: (request: Request, path: string) => Promise<void> | void;
  /** Key of the shared rate-limit window, the token id. */
  rateLimitKey?: string;
}

/** A typed openapi-fetch client whose requests go through the shared transport and decoding. */
export function createApiClient<Paths extends {}>(config: ApiClientConfig): Client<Paths> {
  const rateLimit =
    config.rateLimit === true ? { calls: 600, windowMs: 300_000 } : config.rateLimit || undefined;
  const transport = createTransport({
    ...(config.fetch ? { fetch: config.fetch } : {}),
    ...(config.authenticate ? { authenticate: config.authenticate } : {}),
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    ...(config.retry === undefined ? {} : { retry: config.retry }),
    ...(config.hooks ? { hooks: config.hooks } : {}),
    ...(rateLimit
      ? { rateLimit: { ...rateLimit, key: config.rateLimitKey ?? config.baseUrl } }
      : {}),
  });
  const client = createClient<Paths>({ baseUrl: config.baseUrl, fetch: transport });
  client.use(
    decodingMiddleware(config.operations, config.loadSchemas, {
      validate: config.validateResponses ?? true,
    }),
  );
  return client;
}

/** The data of a successful call, or its typed error. */
export function unwrap<T>(
  result: { data?: T; error?: unknown; response: Response },
  options: { notFound?: 'order-not-live' } = {},
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
