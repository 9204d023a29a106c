import {
  type OAuthRequestIds,
  type SessionCredentials,
  signServiceAuth,
  signSessionAuth,
} from '@exchange-kit/core/auth';
import { type Evidence, Failure, type RecordedCall, SetupError, Skip } from './outcome.js';
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
  query?: Record<string, string>;
  body?: unknown;
  /** Sent as it is, for bodies that are not JSON. */
  rawBody?: string;
  auth?: Auth;
}

const callTimeoutMs = 10_000;

/** Signs and sends calls of the specs' operations, validating every response against its spec. */
export class Caller {
  readonly calls: RecordedCall[] = [];
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
        const schemes = new Set(
          (op.security ?? []).flatMap((requirement) => Object.keys(requirement)),
        );
        if (!schemes.has('ServiceAuth')) return {};
        const delegate = op.authPayload === 'PartnerDelegatedPayload';
        const jwt = delegate
          ? await signServiceAuth(this.token, { path: requestPath, delegate: true })
          : await signServiceAuth(this.token, { path: requestPath });
        return { 'X-Service-Auth': jwt };
      }
    }
  }

  /** The URL of an operation, with its path parameters and query. */
  url(operationId: string, options: Pick<CallOptions, 'path' | 'query'> = {}): URL {
    const op = operation(operationId);
    const base = op.api === 'exchange' ? this.target.exchangeUrl : this.target.partnerUrl;
    const url = new URL(base.replace(/\/+$/, '') + fillPath(op.path, options.path));
    for (const [name, value] of Object.entries(options.query ?? {}))
      url.searchParams.set(name, value);
    return url;
  }

  async call(operationId: string, options: CallOptions = {}): Promise<RecordedCall> {
    const op = operation(operationId);
    const url = this.url(operationId, options);
    const requestPath = `${url.pathname}${url.search}`;
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(await this.authHeaders(operationId, options.auth ?? { kind: 'spec' }, requestPath)),
    };
    const requestBody =
      options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (requestBody !== undefined) headers['content-type'] = 'application/json';
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
    };
    this.calls.push(call);
    for (const listener of this.onCall) listener(call);
    // A rate-limited call says nothing about the requirement it was for.
    if (response.status === 429) {
      throw new SetupError(
        `${op.method} ${url.pathname} was rate limited (429, Retry-After ${response.headers.get('retry-after') ?? 'not given'}); run fewer profiles at a time or raise the limit of the test token`,
        call,
      );
    }
    return call;
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

  record(evidence: Evidence): void {
    this.all.push(evidence);
  }

  /** Runs one check of `requirementId`; what it throws decides the outcome. */
  async check(requirementId: string, check: () => Promise<string | undefined>): Promise<boolean> {
    try {
      const message = await check();
      this.record({ requirementId, outcome: 'pass', message: message || 'as documented' });
      return true;
    } catch (error) {
      this.record(evidenceOf(requirementId, error));
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
  if (error instanceof SetupError) {
    return { requirementId, outcome: 'error', message: error.message, call: error.call };
  }
  return {
    requirementId,
    outcome: 'error',
    message: `the check itself broke: ${(error as Error)?.stack ?? String(error)}`,
  };
}
