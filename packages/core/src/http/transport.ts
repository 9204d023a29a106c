import { type RequestSummary, retryAfterSeconds, TransportError } from '../errors.js';
import { type RateLimit, takeRateLimitSlot } from './rate-limiter.js';

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

export interface TransportOptions {
  fetch?: typeof globalThis.fetch;
  /** Adds credentials to one attempt; called for every attempt, so each carries a fresh JWT. */
  authenticate?: (request: Request, path: string) => Promise<void> | void;
  /** Per attempt. Default 30 s. */
  timeoutMs?: number;
  retry?: RetryOptions | false;
  /** Client-side rate limit, shared per key; off unless given. */
  rateLimit?: (RateLimit & { key: string }) | false;
  hooks?: TransportHooks;
}

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

function summaryOf(request: Request): RequestSummary {
  const { pathname, search } = new URL(request.url);
  return { method: request.method, path: pathname + search };
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

export function createTransport(options: TransportOptions = {}): Transport {
  // Looked up per call, so a fetch installed after the client was made (a test double, a polyfill) is used.
  const send: typeof globalThis.fetch =
    options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retry = options.retry === false ? undefined : (options.retry ?? {});
  const retries = retry?.retries ?? 2;
  const retryStatuses = new Set(retry?.statuses ?? [429, 503]);
  const retryMethods = new Set(retry?.methods ?? ['GET', 'HEAD', 'PUT', 'DELETE']);
  const baseDelayMs = retry?.baseDelayMs ?? 200;
  const maxDelayMs = retry?.maxDelayMs ?? 10_000;
  const hooks = options.hooks ?? {};

  return async function transport(request: Request): Promise<Response> {
    const summary = summaryOf(request);
    const userSignal = request.signal;
    const mayRetry = retry !== undefined && retryMethods.has(request.method);
    for (let attempt = 1; ; attempt++) {
      if (options.rateLimit) {
        const { key, ...limit } = options.rateLimit;
        await takeRateLimitSlot(key, limit, userSignal).catch((cause) => {
          throw new TransportError(summary, 'aborted', { cause });
        });
      }
      // One controller per attempt, held here: signals derived with AbortSignal.any can be
      // collected while a fetch still waits on them, and then never fire.
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new DOMException('The attempt timed out', 'TimeoutError'));
      }, timeoutMs);
      const forwardAbort = () => controller.abort(userSignal.reason);
      if (userSignal.aborted) forwardAbort();
      else userSignal.addEventListener('abort', forwardAbort, { once: true });
      // A body can be read once: keep the original for the next attempt when one may follow.
      // The attempt's signal goes to fetch directly rather than into yet another Request.
      const attemptRequest =
        request.body !== null && mayRetry && attempt <= retries ? request.clone() : request;
      await options.authenticate?.(attemptRequest, summary.path);
      hooks.onRequest?.({
        method: summary.method,
        url: request.url,
        attempt,
        headers: headersForLog(attemptRequest.headers),
      });
      const started = performance.now();
      let response: Response;
      try {
        response = await send(attemptRequest, { signal: controller.signal });
      } catch (cause) {
        if (userSignal.aborted) throw new TransportError(summary, 'aborted', { cause });
        if (timedOut) throw new TransportError(summary, 'timeout', { cause });
        if (mayRetry && attempt <= retries) {
          const delayMs = baseDelayMs * 2 ** (attempt - 1);
          hooks.onRetry?.({
            method: summary.method,
            url: request.url,
            attempt,
            delayMs,
            reason: 'network error',
          });
          await wait(delayMs, userSignal).catch((abort) => {
            throw new TransportError(summary, 'aborted', { cause: abort });
          });
          continue;
        }
        throw new TransportError(summary, 'network', { cause });
      } finally {
        clearTimeout(timer);
        userSignal.removeEventListener('abort', forwardAbort);
      }
      hooks.onResponse?.({
        method: summary.method,
        url: request.url,
        attempt,
        status: response.status,
        durationMs: performance.now() - started,
      });
      if (mayRetry && attempt <= retries && retryStatuses.has(response.status)) {
        const asked = retryAfterSeconds(response.headers);
        const backoff = baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
        const delayMs = asked === undefined ? backoff : asked * 1000;
        if (delayMs <= maxDelayMs) {
          hooks.onRetry?.({
            method: summary.method,
            url: request.url,
            attempt,
            delayMs,
            reason: `status ${response.status}`,
          });
          await response.body?.cancel();
          await wait(delayMs, userSignal).catch((cause) => {
            throw new TransportError(summary, 'aborted', { cause });
          });
          continue;
        }
      }
      requestOfResponse.set(response, summary);
      return response;
    }
  };
}
