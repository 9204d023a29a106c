import { defaultSend } from '#send';
import { type RequestSummary, retryAfterSeconds, TransportError } from '../errors.js';
import { AttemptHeaders } from './attempt-headers.js';
import { type RateLimit, sleep, takeRateLimitSlot } from './rate-limiter.js';
import { type Answer, fetchSend, type Outgoing } from './send.js';

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
  /**
   * Resends of a call refused for its nonce (401 `Nonce is too small`), any method: such a call
   * was not executed. Each resend is signed anew after a jitter (up to 5 ms, doubled on each
   * resend, at most 250 ms). Default 8.
   */
  nonceRetries?: number;
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
  /** `status 429`, `status 503`, `network error`, or `nonce too small` for a nonce resend. */
  reason: string;
}

/** Logging hooks. They see no credential: auth headers arrive as "[redacted]". */
export interface TransportHooks {
  /**
   * When an attempt is signed, right before it is written (on Node, once its socket is
   * connected): an attempt that never got a connection is reported by onRetry or the error only.
   */
  onRequest?(event: RequestEvent): void;
  onResponse?(event: ResponseEvent): void;
  onRetry?(event: RetryEvent): void;
}

/** What an authenticator sees of one attempt (a Request fits): it signs the path and sets headers. */
export interface AttemptRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: AttemptHeaders;
}

/** How one attempt is to be signed, as its operation's row of the contract says. */
export interface SignOptions {
  /** Sign without a nonce: only a `POST /orders` whose body carries a `client_order_id` may. */
  withoutNonce?: boolean;
  /** The partner's delegated payload: path `/realtime`, the real path as `delegate_path`. */
  delegate?: boolean;
}

export type Authenticate = (
  request: AttemptRequest,
  path: string,
  options?: SignOptions,
) => Promise<void> | void;

export interface TransportOptions {
  /**
   * A fetch to send requests with. Without one, Node sends through node:http with a keep-alive
   * agent, and browsers and edge runtimes through the global fetch.
   */
  fetch?: typeof globalThis.fetch;
  /** Adds credentials to one attempt; called for every attempt, so each carries a fresh JWT. */
  authenticate?: Authenticate;
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
  /** Handed to `authenticate`. */
  sign?: SignOptions | undefined;
  /** This call's timeout per attempt, in place of the sender's. */
  timeoutMs?: number | undefined;
  /** This call's retries: `false` for none, or options laid over the sender's. */
  retry?: RetryOptions | false | undefined;
}

/** Sends one call with signing, timeouts, retries, limits and hooks; answers with the body read. */
export type Sender = (request: CallRequest) => Promise<Answer>;

/** A fetch with which openapi-fetch sends requests: signing, timeouts, retries, limits, hooks. */
export type Transport = (input: Request) => Promise<Response>;

const redactedHeaders = new Set(['x-service-auth', 'authorization']);
const requestOfResponse = new WeakMap<Response, RequestSummary>();

/**
 * How a request made through openapi-fetch is to be signed: set by the client's middleware,
 * which knows the operation, and read by the transport, which signs each attempt.
 */
const signOptionsOfRequest = new WeakMap<Request, SignOptions>();
export const signRequestAs = (request: Request, options: SignOptions): void =>
  void signOptionsOfRequest.set(request, options);

/** The request a response answers, for error messages. */
export function requestOf(response: Response): RequestSummary | undefined {
  return requestOfResponse.get(response);
}

function headersForLog(headers: AttemptHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = redactedHeaders.has(name) ? '[redacted]' : value;
  });
  return out;
}

const nonceTooSmall = 'Nonce is too small';

/**
 * A refusal for the nonce, as the spec documents it: 401 with the plain-text body
 * `Nonce is too small`, or the JSON `{"message": "Nonce is too small"}`. Any other 401 (a bad
 * signature, a path mismatch) would fail again, so only this one is worth a resend.
 */
export function isNonceRefusal(answer: Pick<Answer, 'status' | 'text'>): boolean {
  if (answer.status !== 401) return false;
  const text = answer.text.trim();
  if (text === nonceTooSmall) return true;
  if (!text.startsWith('{')) return false;
  try {
    return (JSON.parse(text) as { message?: unknown } | null)?.message === nonceTooSmall;
  } catch {
    return false;
  }
}

// Refused calls of one burst are resent apart, so they do not race each other again; the
// window doubles with each resend, so a burst that keeps racing thins out.
const nonceJitterMs = 5;
const nonceJitterCapMs = 250;

const retryStatuses = [429, 503];
const retryMethods = ['GET', 'HEAD', 'PUT', 'DELETE'];

const aborted = (request: RequestSummary, cause: unknown) =>
  new TransportError(request, 'aborted', { cause });

/**
 * Hooks observe calls: one that throws (a broken logger) must neither fail the call it watches,
 * which may have been carried out already, nor pass for a network failure and be retried. Its
 * error goes to the console instead.
 */
function observing(hooks: TransportHooks): TransportHooks {
  const guarded =
    <Event>(name: keyof TransportHooks, hook: (event: Event) => void) =>
    (event: Event) => {
      try {
        hook.call(hooks, event);
      } catch (error) {
        console.error(`exchange-kit: hooks.${name} threw; the call goes on without it`, error);
      }
    };
  return {
    ...(hooks.onRequest && { onRequest: guarded('onRequest', hooks.onRequest) }),
    ...(hooks.onResponse && { onResponse: guarded('onResponse', hooks.onResponse) }),
    ...(hooks.onRetry && { onRetry: guarded('onRetry', hooks.onRetry) }),
  };
}

export function createSender(options: TransportOptions = {}): Sender {
  const send = options.fetch ? fetchSend(options.fetch) : defaultSend;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retry = options.retry === false ? undefined : (options.retry ?? {});
  // Without an authenticator a call cannot be signed anew, so resending it would change nothing.
  const canSignAnew = options.authenticate !== undefined;
  const hooks = observing(options.hooks ?? {});

  return async function sender(call: CallRequest): Promise<Answer> {
    const { method, url, signal } = call;
    const summary: RequestSummary = { method, path: call.path };
    const attemptMs = call.timeoutMs ?? timeoutMs;
    // A call's own retry options are laid over the client's; a call without any, the usual
    // one, builds nothing.
    const plan =
      (call.retry === undefined ? retry : call.retry && { ...retry, ...call.retry }) || undefined;
    const retries = plan ? (plan.retries ?? 2) : 0;
    const statuses = plan?.statuses ?? retryStatuses;
    const mayRetry = (plan?.methods ?? retryMethods).includes(method);
    const baseDelayMs = plan?.baseDelayMs ?? 200;
    const maxDelayMs = plan?.maxDelayMs ?? 10_000;
    const nonceRetries = plan && canSignAnew ? (plan.nonceRetries ?? 8) : 0;
    const signed = call.sign?.withoutNonce !== true;
    let statusRetries = 0;
    let nonceResends = 0;
    for (let attempt = 1; ; attempt++) {
      if (options.rateLimit) {
        const { key, ...limit } = options.rateLimit;
        await takeRateLimitSlot(key, limit, signal).catch((cause) => {
          throw aborted(summary, cause);
        });
      }
      // A string body can be sent again as it is; only the headers are made anew per attempt.
      const headers = new AttemptHeaders(call.headers);
      const outgoing: Outgoing = { method, url, headers, body: call.body };
      const { authenticate } = options;
      const logged = () =>
        hooks.onRequest?.({ method, url, attempt, headers: headersForLog(headers) });
      // Signing fails the call as it is, not as a network error to retry.
      let signing: { failure: unknown } | undefined;
      if (authenticate) {
        const refused = (failure: unknown) => {
          signing = { failure };
          throw failure;
        };
        // Synchronous when the authenticator is: the sender then writes in the same turn.
        outgoing.sign = () => {
          let signed: Promise<void> | void;
          try {
            signed = authenticate(outgoing, call.path, call.sign);
          } catch (failure) {
            return refused(failure);
          }
          if (signed) return signed.then(logged, refused);
          logged();
        };
      } else {
        logged();
      }
      const started = hooks.onResponse ? performance.now() : 0;
      let answer: Answer | undefined;
      let failure: unknown;
      try {
        answer = await send(outgoing, signal, attemptMs);
      } catch (cause) {
        if (signing) throw signing.failure;
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
      if (answer && signed && nonceResends < nonceRetries && isNonceRefusal(answer)) {
        nonceResends++;
        const window = Math.min(nonceJitterMs * 2 ** (nonceResends - 1), nonceJitterCapMs);
        const delayMs = Math.random() * window;
        hooks.onRetry?.({ method, url, attempt, delayMs, reason: 'nonce too small' });
        await sleep(delayMs, signal).catch((cause) => {
          throw aborted(summary, cause);
        });
        continue;
      }
      // A network failure is retried like a retryable status, with the same backoff.
      if (mayRetry && statusRetries < retries && (!answer || statuses.includes(answer.status))) {
        statusRetries++;
        const asked = answer && retryAfterSeconds(answer.headers);
        const backoff = baseDelayMs * 2 ** (statusRetries - 1) * (0.5 + Math.random() / 2);
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
      sign: signOptionsOfRequest.get(request),
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
