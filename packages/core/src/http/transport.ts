import { defaultSend } from '#send';
import { type RequestSummary, retryAfterSeconds, TransportError } from '../errors.js';
import { type RateLimit, sleep, takeRateLimitSlot } from './rate-limiter.js';
import { type Answer, fetchSend } from './send.js';

export interface RetryOptions {
  /** Retries after the first attempt. Default 2. */
  retries?: number;
  /** Statuses that mean "not processed, try again". Default 429 and 503. */
  statuses?: readonly number[];
  /** Methods safe to send twice. Default GET, HEAD, PUT, DELETE; POST only when listed. */
  methods?: readonly string[];
  /** First backoff; doubled each attempt, with jitter. Default 200 ms. */
  baseDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the error goes to the caller. Default 10 s. */
  maxDelayMs?: number;
}

export interface RequestEvent {
  method: string;
  url: string;
  attempt: number;
  /** The request headers with credentials redacted. */
  headers: Record<string, string>;
}

export interface ResponseEvent {
  method: string;
  url: string;
  attempt: number;
  status: number;
  durationMs: number;
}

export interface RetryEvent {
  method: string;
  url: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

/** Logging hooks. They see no credential: auth headers arrive as "[redacted]". */
export interface TransportHooks {
  onRequest?(event: RequestEvent): void;
  onResponse?(event: ResponseEvent): void;
  onRetry?(event: RetryEvent): void;
}

/** What an authenticator sees of one attempt (a Request fits): it signs the path and sets headers. */
export interface AttemptRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
}

export interface TransportOptions {
  /**
   * A fetch to send requests with. Without one, Node sends through node:http with a keep-alive
   * agent, and browsers and edge runtimes through the global fetch.
   */
  fetch?: typeof globalThis.fetch;
  /** Adds credentials to one attempt; called for every attempt, so each carries a fresh JWT. */
  authenticate?: (request: AttemptRequest, path: string) => Promise<void> | void;
  /** Per attempt, until the whole answer is in. Default 30 s. */
  timeoutMs?: number;
  retry?: RetryOptions | false;
  /** Client-side rate limit, shared per key; off unless given. */
  rateLimit?: (RateLimit & { key: string }) | false;
  hooks?: TransportHooks;
}

/** One call as a sender takes it. */
export interface CallRequest {
  method: string;
  /** Absolute, exactly as it goes on the wire. */
  url: string;
  /** The URL's path and query string, as signed. */
  path: string;
  /** Copied for every attempt, before the credentials are added. */
  headers?: HeadersInit | undefined;
  body?: string | Uint8Array<ArrayBuffer> | undefined;
  signal?: AbortSignal | undefined;
}

/** Sends one call with signing, timeouts, retries, limits and hooks; answers with the body read. */
export type Sender = (request: CallRequest) => Promise<Answer>;

/** A fetch with which openapi-fetch sends requests: signing, timeouts, retries, limits, hooks. */
export type Transport = (input: Request) => Promise<Response>;

const redactedHeaders = new Set(['x-service-auth', 'authorization']);
const requestOfResponse = new WeakMap<Response, RequestSummary>();

/** The request a response answers, for error messages. */
export function requestOf(response: Response): RequestSummary | undefined {
  return requestOfResponse.get(response);
}

function headersForLog(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = redactedHeaders.has(name) ? '[redacted]' : value;
  });
  return out;
}

const aborted = (request: RequestSummary, cause: unknown) =>
  new TransportError(request, 'aborted', { cause });

export function createSender(options: TransportOptions = {}): Sender {
  const send = options.fetch ? fetchSend(options.fetch) : defaultSend;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retry = options.retry === false ? undefined : (options.retry ?? {});
  const retries = retry?.retries ?? 2;
  const retryStatuses = new Set(retry?.statuses ?? [429, 503]);
  const retryMethods = new Set(retry?.methods ?? ['GET', 'HEAD', 'PUT', 'DELETE']);
  const baseDelayMs = retry?.baseDelayMs ?? 200;
  const maxDelayMs = retry?.maxDelayMs ?? 10_000;
  const hooks = options.hooks ?? {};

  return async function sender(call: CallRequest): Promise<Answer> {
    const { method, url, signal } = call;
    const summary: RequestSummary = { method, path: call.path };
    const mayRetry = retry !== undefined && retryMethods.has(method);
    for (let attempt = 1; ; attempt++) {
      if (options.rateLimit) {
        const { key, ...limit } = options.rateLimit;
        await takeRateLimitSlot(key, limit, signal).catch((cause) => {
          throw aborted(summary, cause);
        });
      }
      // A string body can be sent again as it is; only the headers are made anew per attempt.
      const outgoing = { method, url, headers: new Headers(call.headers), body: call.body };
      await options.authenticate?.(outgoing, call.path);
      hooks.onRequest?.({ method, url, attempt, headers: headersForLog(outgoing.headers) });
      const started = performance.now();
      let answer: Answer | undefined;
      let failure: unknown;
      try {
        answer = await send(outgoing, signal, timeoutMs);
      } catch (cause) {
        if (signal?.aborted) throw aborted(summary, cause);
        if ((cause as Error | null)?.name === 'TimeoutError') {
          throw new TransportError(summary, 'timeout', { cause });
        }
        failure = cause;
      }
      if (answer) {
        hooks.onResponse?.({
          method,
          url,
          attempt,
          status: answer.status,
          durationMs: performance.now() - started,
        });
      }
      // A network failure is retried like a retryable status, with the same backoff.
      if (mayRetry && attempt <= retries && (!answer || retryStatuses.has(answer.status))) {
        const asked = answer && retryAfterSeconds(answer.headers);
        const backoff = baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
        const delayMs = asked === undefined ? backoff : asked * 1000;
        if (delayMs <= maxDelayMs) {
          const reason = answer ? `status ${answer.status}` : 'network error';
          hooks.onRetry?.({ method, url, attempt, delayMs, reason });
          await sleep(delayMs, signal).catch((cause) => {
            throw aborted(summary, cause);
          });
          continue;
        }
      }
      if (!answer) throw new TransportError(summary, 'network', { cause: failure });
      return answer;
    }
  };
}

/** A fetch over a sender, for openapi-fetch: the answer comes back as a Response. */
export function transportOf(sender: Sender): Transport {
  return async (request) => {
    const { pathname, search } = new URL(request.url);
    const summary = { method: request.method, path: pathname + search };
    const answer = await sender({
      ...summary,
      url: request.url,
      headers: request.headers,
      body: request.body ? new Uint8Array(await request.arrayBuffer()) : undefined,
      signal: request.signal,
    });
    // A status without a body (204, 304) refuses even an empty one.
    const response = new Response(answer.text || null, answer);
    requestOfResponse.set(response, summary);
    return response;
  };
}

export function createTransport(options: TransportOptions = {}): Transport {
  return transportOf(createSender(options));
}
