import { AsyncLocalStorage } from 'node:async_hooks';
import { isNonceRefusal } from '@exchange-kit/core';
import {
  type OAuthRequestIds,
  type SessionCredentials,
  signServiceAuth,
  signSessionAuth,
} from '@exchange-kit/core/auth';
import { Decimal } from 'decimal.js';
import { signRequestOf } from '../signing/sign.js';
import {
  type Evidence,
  Failure,
  PreconditionError,
  type RecordedCall,
  SetupError,
  Skip,
} from './outcome.js';
import { fillPath, operation } from './spec.js';
import type { Target } from './target.js';
import { checkResponse } from './validate.js';

/** How a call is authenticated; the default follows the operation's security in the spec. */
export type Auth =
  | { kind: 'spec' }
  | { kind: 'none' }
  | { kind: 'oauth'; ids: OAuthRequestIds }
  | { kind: 'session'; session: SessionCredentials }
  /** Headers the caller builds from the request path (query string included): the attacks. */
  | { kind: 'custom'; headers: (requestPath: string) => Promise<Record<string, string>> };

export interface CallOptions {
  path?: Record<string, string | number>;
  /** A name given several values is sent once with each, in their order. */
  query?: Record<string, string | readonly string[]>;
  body?: unknown;
  /** Sent as it is, for bodies that are not JSON. */
  rawBody?: string;
  auth?: Auth;
}

const callTimeoutMs = 10_000;

// The calls made inside one check, kept apart from those of checks running beside it.
const checkCalls = new AsyncLocalStorage<RecordedCall[]>();

// Calls sent side by side may reach the server out of nonce order; such a refusal executed
// nothing, so the suite's own (not forged) calls are signed anew and sent again.
const nonceResends = 8;

/** Signs and sends calls of the specs' operations, validating every response against its spec. */
export class SpecClient {
  readonly calls: RecordedCall[] = [];
  // JWTs already sent: one sent again is a replay, and only the same JWT reproduces it.
  private readonly sentJwts = new Set<string>();
  /** Called with every call made, for the response requirements. */
  readonly onCall: ((call: RecordedCall) => void)[] = [];

  constructor(readonly target: Target) {}

  private get token() {
    return { tokenId: this.target.tokenId, tokenSecret: this.target.tokenSecret };
  }

  /** Request headers for `auth`; `requestPath` is what the JWT signs. */
  async authHeaders(
    operationId: string,
    auth: Auth,
    requestPath: string,
  ): Promise<Record<string, string>> {
    const op = operation(operationId);
    switch (auth.kind) {
      case 'none':
        return {};
      case 'custom':
        return auth.headers(requestPath);
      case 'oauth':
        return {
          'X-Service-Auth': await signServiceAuth(this.token, {
            path: requestPath,
            oauth: auth.ids,
          }),
        };
      case 'session':
        return { Authorization: `Bearer ${await signSessionAuth(auth.session, requestPath)}` };
      case 'spec': {
        if (op.signing === 'service') {
          return { 'X-Service-Auth': await signServiceAuth(this.token, { path: requestPath }) };
        }
        if (op.signing === 'delegated') {
          const jwt = await signServiceAuth(this.token, { path: requestPath, delegate: true });
          return { 'X-Service-Auth': jwt };
        }
        // A session call needs a session, which only a check that made one can give.
        return {};
      }
    }
  }

  /** The URL of an operation, with its path parameters and query. */
  url(operationId: string, options: Pick<CallOptions, 'path' | 'query'> = {}): URL {
    const op = operation(operationId);
    const base = op.api === 'exchange' ? this.target.exchangeUrl : this.target.partnerUrl;
    const url = new URL(base.replace(/\/+$/, '') + fillPath(op.path, options.path));
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (typeof value === 'string') url.searchParams.set(name, value);
      else for (const each of value) url.searchParams.append(name, each);
    }
    return url;
  }

  async call(operationId: string, options: CallOptions = {}): Promise<RecordedCall> {
    const auth = options.auth ?? { kind: 'spec' };
    let { call, retryAfter } = await this.send(operationId, options, auth);
    for (
      let resend = 0;
      resend < nonceResends &&
      auth.kind !== 'custom' &&
      isNonceRefusal({ status: call.status, text: call.responseText });
      resend++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(resend * 2)));
      ({ call, retryAfter } = await this.send(operationId, options, auth));
    }
    this.calls.push(call);
    checkCalls.getStore()?.push(call);
    for (const listener of this.onCall) listener(call);
    // A rate-limited call says nothing about the requirement it was for.
    if (call.status === 429) {
      throw new SetupError(
        `${call.method} ${new URL(call.url).pathname} was rate limited (429, Retry-After ${retryAfter ?? 'not given'}); run fewer profiles at a time or raise the limit of the test token`,
        call,
      );
    }
    return call;
  }

  private async send(
    operationId: string,
    options: CallOptions,
    auth: Auth,
  ): Promise<{ call: RecordedCall; retryAfter: string | null }> {
    const op = operation(operationId);
    const url = this.url(operationId, options);
    const requestPath = `${url.pathname}${url.search}`;
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(await this.authHeaders(operationId, auth, requestPath)),
    };
    const requestBody =
      options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (requestBody !== undefined) headers['content-type'] = 'application/json';
    const sentAt = Date.now();
    const started = performance.now();
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: op.method,
        headers,
        body: requestBody,
        signal: AbortSignal.timeout(callTimeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new SetupError(
        `${op.method} ${url.href} could not be sent: ${(error as Error).cause ?? (error as Error).message}`,
      );
    }
    const contentType = response.headers.get('content-type');
    const { json, violations } = checkResponse(op, response.status, contentType, text);
    const jwt = headers['X-Service-Auth'];
    // A nonce within a minute of sending is the fresh one any signing gives; an older one was
    // sent on purpose (the smaller-nonce attack) and is kept.
    const signing =
      jwt === undefined
        ? undefined
        : this.sentJwts.has(jwt)
          ? 'as-sent'
          : signRequestOf(jwt, this.target.tokenSecret, (nonce) => nonce > sentAt - 60_000);
    if (jwt !== undefined) this.sentJwts.add(jwt);
    const call: RecordedCall = {
      operationId,
      method: op.method,
      url: url.href,
      requestHeaders: headers,
      requestBody,
      status: response.status,
      contentType,
      responseText: text,
      json,
      violations,
      durationMs: Math.round(performance.now() - started),
      receivedAt: Date.now(),
    };
    const serverDate = Date.parse(response.headers.get('date') ?? '');
    if (Number.isFinite(serverDate)) call.serverDate = serverDate;
    if (signing) call.signing = signing;
    if (auth.kind === 'session') call.sessionSigning = { ...auth.session, path: requestPath };
    return { call, retryAfter: response.headers.get('retry-after') };
  }
}

/** Reads `call.json` as an object, or fails the check. */
export function bodyOf(call: RecordedCall): Record<string, unknown> {
  if (typeof call.json !== 'object' || call.json === null) {
    throw new Failure(`${call.operationId} answered a body that is not a JSON object`, {
      received: call.responseText.slice(0, 300),
      call,
    });
  }
  return call.json as Record<string, unknown>;
}

/** What a refusal's `errors` names for `field`: its codes as answered, or undefined. */
export function fieldCodes(call: RecordedCall, field: string): unknown {
  return (call.json as { errors?: Record<string, unknown> } | null | undefined)?.errors?.[field];
}

/** Fails the check on what `call` answered, which is not what `documented` says. */
export function failAt(message: string, call: RecordedCall, documented: string): never {
  throw new Failure(message, { call, documented, received: call.responseText.slice(0, 300) });
}

/** A 2xx: the server did what was asked. */
export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** A 4xx: the request was refused as the caller's, not failed by the server. */
export const isClientError = (status: number): boolean => status >= 400 && status < 500;

/** Decimal strings compared as the numbers they are: "10.50" is "10.5"; a non-decimal is not. */
export function sameDecimal(a: unknown, b: unknown): boolean {
  try {
    return new Decimal(String(a)).eq(String(b));
  } catch {
    return false;
  }
}

/** Fails the check unless the response has the expected status. */
export function expectStatus(
  call: RecordedCall,
  expected: number | ((status: number) => boolean),
  documented?: string,
): void {
  const ok = typeof expected === 'number' ? call.status === expected : expected(call.status);
  if (ok) return;
  throw new Failure(`${call.method} ${new URL(call.url).pathname} answered ${call.status}`, {
    received: `${call.status} ${call.responseText.slice(0, 300)}`,
    documented: documented ?? `status ${String(expected)}`,
    call,
  });
}

/** Collects the evidence of a run: each check of each scenario, about one requirement. */
export class Evidences {
  readonly all: Evidence[] = [];
  /** Told of each evidence as it is recorded. */
  readonly listeners = new Set<(evidence: Evidence) => void>();

  record(evidence: Evidence): void {
    this.all.push(evidence);
    for (const listener of this.listeners) listener(evidence);
  }

  /** Runs one check of `requirementId`; what it throws decides the outcome. */
  async check(requirementId: string, check: () => Promise<string | undefined>): Promise<boolean> {
    const made: RecordedCall[] = [];
    try {
      const message = await checkCalls.run(made, check);
      this.record({ requirementId, outcome: 'pass', message: message || 'as documented' });
      return true;
    } catch (error) {
      const evidence = evidenceOf(requirementId, error);
      // The read-backs that found the failure, so each can be replayed beside the call itself.
      const steps = made.filter((call) => call !== evidence.call);
      if (evidence.outcome === 'fail' && steps.length > 0 && !evidence.steps)
        evidence.steps = steps;
      this.record(evidence);
      return false;
    }
  }

  /** Records a status observed in passing, for the status-table requirements. */
  noteStatus(requirementId: string, call: RecordedCall, expected: number): void {
    const ok = call.status === expected;
    this.record({
      requirementId,
      outcome: ok ? 'pass' : 'fail',
      message: ok
        ? `${call.operationId} answered ${expected}`
        : `${call.operationId} answered ${call.status} instead of ${expected}`,
      received: ok ? undefined : `${call.status} ${call.responseText.slice(0, 300)}`,
      documented: ok ? undefined : `status ${expected}`,
      call: ok ? undefined : call,
    });
  }
}

export function evidenceOf(requirementId: string, error: unknown): Evidence {
  if (error instanceof Failure) {
    return { requirementId, outcome: 'fail', message: error.message, ...error.details };
  }
  if (error instanceof Skip) return { requirementId, outcome: 'skip', message: error.message };
  if (error instanceof PreconditionError)
    return { requirementId, outcome: 'error', message: error.message, precondition: true };
  if (error instanceof SetupError) {
    return { requirementId, outcome: 'error', message: error.message, call: error.call };
  }
  return {
    requirementId,
    outcome: 'error',
    message: `the check itself broke: ${(error as Error)?.stack ?? String(error)}`,
  };
}
