import { CredentialsRefusedError, RunAbortedError } from './aborted.js';
import { type Profile, profilesOf } from './catalog.js';
import { SpecClient } from './context.js';
import type { RecordedCall } from './outcome.js';
import { type Operation, operations } from './spec.js';
import type { Target } from './target.js';

/**
 * The operations the spec tags give these profiles. The profiles that check across the others
 * (auth, input, model) call only operations of profiles selected beside them, so these are all
 * the operations a run of the profiles may call.
 */
function operationsOf(profiles: ReadonlySet<Profile>): Operation[] {
  return [...operations.values()].filter((op) =>
    profilesOf([op.operationId]).some((profile) => profiles.has(profile)),
  );
}

const signedWithToken = (op: Operation) => op.signing === 'service' || op.signing === 'delegated';
const namesPartner = (op: Operation) => op.path.includes('{public_api_key}');

/** What a run of these profiles signs with: the API token, the partner public API key. */
export function credentialsNeeded(profiles: Iterable<Profile>): {
  token: boolean;
  publicApiKey: boolean;
} {
  const used = operationsOf(new Set(profiles));
  return {
    token: used.some(signedWithToken),
    publicApiKey: used.some(namesPartner),
  };
}

/** Whether each base URL answers at all: nothing else can be judged when one does not. */
export async function preflight(target: Target, profiles: ReadonlySet<Profile>): Promise<void> {
  const used = operationsOf(profiles);
  const urls = [
    ...(used.some((op) => op.api === 'exchange') ? [target.exchangeUrl] : []),
    ...(used.some((op) => op.api === 'partner') ? [target.partnerUrl] : []),
  ];
  for (const url of new Set(urls)) {
    try {
      new URL(url);
    } catch {
      throw new RunAbortedError(
        `"${url}" is not a URL; give the base URL, for example http://127.0.0.1:4000`,
      );
    }
    try {
      await fetch(url, { signal: AbortSignal.timeout(5000) });
    } catch (error) {
      throw new RunAbortedError(
        `cannot reach ${url} (${String((error as Error).cause ?? (error as Error).message)}); start the server, or check --exchange-url / --partner-url`,
      );
    }
  }
}

/** The status and the server's own words: the `message` of a JSON body, or its first line. */
function answerOf(call: RecordedCall): string {
  const message = (call.json as { message?: unknown } | undefined)?.message;
  const words =
    typeof message === 'string' ? message : (call.responseText.split('\n')[0] ?? '').slice(0, 80);
  return `answered ${call.status}${words ? ` "${words.trim()}"` : ''}`;
}

const pathOf = (call: RecordedCall) => new URL(call.url).pathname;

/**
 * A 404 the operation does not document, or whose body is not the documented one: the server
 * has no such route there, which for a route every server of the interface has means the
 * base URL is not the interface's.
 */
function noSuchRoute(call: RecordedCall, op: Operation): boolean {
  if (call.status !== 404) return false;
  const documented = op.responses['404'] ?? op.responses['4XX'] ?? op.responses.default;
  return documented === undefined || call.violations.length > 0;
}

/** An answer that names the public API key: in its field errors, or in its words. */
function blamesTheKey(call: RecordedCall): boolean {
  const body = call.json as { message?: unknown; errors?: unknown } | undefined;
  if (
    body?.errors !== null &&
    typeof body?.errors === 'object' &&
    'public_api_key' in body.errors
  ) {
    return true;
  }
  return (
    typeof body?.message === 'string' &&
    /public[_ ]api[_ ]key|partner not found/i.test(body.message)
  );
}

function wrongBaseUrl(call: RecordedCall, baseUrl: string, option: string): RunAbortedError {
  return new RunAbortedError(
    `GET ${pathOf(call)} ${answerOf(call)}, a route every server of the interface has: is ${baseUrl} the base URL? check ${option} (the spec paths are appended to it)`,
  );
}

// The conventions require each nonce of a token to be larger than the last one it used; the
// run's nonces come from this clock, so a refusal naming the nonce means an earlier one was larger.
const nonceRefusal = /nonce/i;

function tokenRefused(
  call: RecordedCall,
  target: Target,
  refused: string,
  advice: string,
): CredentialsRefusedError {
  if (nonceRefusal.test(call.responseText)) {
    return new CredentialsRefusedError(
      'token',
      `the server has already seen a larger nonce for the API token ${target.tokenId} than this clock gives (${Date.now()}, milliseconds since 1970; GET ${pathOf(call)} ${answerOf(call)}): the token was used with a nonce ahead of time; use another token, or have the server forget the nonces of this one`,
    );
  }
  return new CredentialsRefusedError(
    'token',
    `${refused} (GET ${pathOf(call)} ${answerOf(call)}): ${advice}`,
  );
}

/**
 * The base URLs and the credentials the selected profiles use, each with one call: a wrong one
 * would otherwise turn every requirement into an ERROR or a FAIL of the server. Only a refusal
 * (401), the public API key named unknown, or a route missing stops the run; any other answer
 * is left to the requirements that judge it.
 */
export async function checkTarget(target: Target, profiles: ReadonlySet<Profile>): Promise<void> {
  const used = operationsOf(profiles);
  const caller = new SpecClient(target);
  const exchange = used.filter((op) => op.api === 'exchange');
  if (exchange.length > 0) {
    // The token's own read proves the token and the base URL at once; without a token, a
    // public read proves the base URL.
    const withToken = exchange.some(signedWithToken);
    const read = withToken
      ? await caller.call('listOrders', { query: { limit: '1' } })
      : await caller.call('listProducts');
    const op = exchange.find((candidate) => candidate.operationId === read.operationId);
    if (op && noSuchRoute(read, op)) throw wrongBaseUrl(read, target.exchangeUrl, '--exchange-url');
    if (withToken && read.status === 401) {
      throw tokenRefused(
        read,
        target,
        `the server refused the API token ${target.tokenId}`,
        'check --token-id and the token secret',
      );
    }
  }
  const partner = used.find((op) => op.api === 'partner' && namesPartner(op));
  if (partner) {
    const listed = await caller.call('listPartnerTransactions', {
      path: { public_api_key: target.publicApiKey },
      query: { min_ts: String(Date.now()) },
    });
    const op = operations.get('listPartnerTransactions') as Operation;
    if (noSuchRoute(listed, op)) throw wrongBaseUrl(listed, target.partnerUrl, '--partner-url');
    if (listed.status === 401) {
      throw tokenRefused(
        listed,
        target,
        `the partner interface refused the API token ${target.tokenId} for public API key ${target.publicApiKey}`,
        'check --token-id, the token secret and --public-api-key',
      );
    }
    // A 404 is the key's only when it says so; a server whose misses have the documented
    // shape answers a wrong base URL with a schema-valid 404 too.
    if (listed.status === 404 && !blamesTheKey(listed)) {
      throw wrongBaseUrl(listed, target.partnerUrl, '--partner-url');
    }
    if (listed.status === 422 || listed.status === 404) {
      throw new CredentialsRefusedError(
        'public-api-key',
        `the partner interface does not know public API key ${target.publicApiKey} (GET ${pathOf(listed)} ${answerOf(listed)}): check --public-api-key`,
      );
    }
  }
}
