import {
  type OAuthRequestIds,
  type ServiceAuthPayload,
  type ServiceAuthRequest,
  serviceAuthPayload,
  signAuthPayload,
} from '@exchange-kit/core/auth';
import { findOperation, operations } from '../engine/spec.js';
import { forgeJwt, jwtHeader, jwtPayload } from './forge.js';

/**
 * What an X-Service-Auth JWT says, field by field: enough to sign the same JWT again with a
 * fresh nonce (or the same stale one, for an attack that sent one), so a printed curl line can
 * carry `$(exchange-conformance sign ...)` in place of a JWT that has expired by the time it is
 * pasted.
 */
export interface SignRequest {
  tokenId: string;
  /** The signed path, query string included; the delegated path for partner calls. */
  path: string;
  /** Partner delegated payload: `path` becomes `/realtime` and this path `delegate_path`. */
  delegate?: boolean;
  oauthPublicId?: string;
  oauthPrivateId?: string;
  /** A fixed nonce; a fresh one when absent. `null` leaves the nonce out. */
  nonce?: number | null;
  alg?: 'HS256' | 'HS512';
}

/** The environment variable the CLI reads the token secret from, so it stays out of shell history. */
export const tokenSecretVariable = 'EXCHANGE_CONFORMANCE_TOKEN_SECRET';

/** What a session Bearer JWT says: its session and the path, signed with the session's secret. */
export interface SessionSignRequest {
  sessionId: string;
  sessionSecret: string;
  /** The signed path, `/api/v1/...` with the query string. */
  path: string;
}

/** The environment variable `sign --session-id` reads the session secret from. */
export const sessionSecretVariable = 'EXCHANGE_CONFORMANCE_SESSION_SECRET';

/** What core's payload builder is asked for: the kind of JWT `request` describes. */
function payloadRequest(request: SignRequest): ServiceAuthRequest {
  const { path } = request;
  if (request.delegate) return { path, delegate: true };
  if (request.oauthPublicId !== undefined || request.oauthPrivateId !== undefined) {
    // An attack may send one id alone: the other is left out of the JSON as undefined.
    const oauth = { publicId: request.oauthPublicId, privateId: request.oauthPrivateId };
    return { path, oauth: oauth as OAuthRequestIds };
  }
  return { path, withoutNonce: request.nonce === null };
}

/**
 * Signs the X-Service-Auth JWT `request` describes with core's payload builder and signer, so
 * a JWT signed here is the one a client sends; only an HS512 one (an attack's) is forged.
 */
export function signFor(request: SignRequest, tokenSecret: string): string {
  // core's nonce source, so a JWT signed here never goes below one the run itself sent.
  const payload: Record<string, unknown> = serviceAuthPayload(request, payloadRequest(request));
  if (request.nonce === null) delete payload.nonce;
  else if (request.nonce !== undefined) payload.nonce = request.nonce;
  if (request.alg === 'HS512') return forgeJwt(payload, { secret: tokenSecret, alg: 'HS512' });
  const jwt = signAuthPayload(payload as ServiceAuthPayload, tokenSecret);
  if (typeof jwt !== 'string') throw new Error('core signs at once on Node, where this runs');
  return jwt;
}

/** The HTTP methods of the specs' operations: `sign --method` takes one of them. */
export const signableMethods: readonly string[] = [
  ...new Set([...operations.values()].map((op) => op.method.toUpperCase())),
].sort();

/** Whether an operation's JWT is the partner delegated one, so `sign --method` can choose it. */
export function delegatedOperation(method: string, path: string): boolean {
  return findOperation(method.toUpperCase(), path.split('?')[0] ?? path)?.signing === 'delegated';
}

/** What signing again keeps of a payload: all of it, but the fresh claims of one without nonce. */
function signedFields(payload: Record<string, unknown> | undefined): unknown {
  if (payload?.nonce !== undefined) return payload;
  const { iat: _iat, jti: _jti, ...kept } = payload ?? {};
  return kept;
}

/**
 * The request a JWT was signed from, when it was signed with `tokenSecret` (HS256 or HS512);
 * `'as-sent'` when it was not (alg none, another secret): holding nothing of the secret, it may
 * be shown as it is; undefined for one signed with the secret that cannot be signed again.
 * `fresh` says which nonces count as current: any other is kept, since it is what an attack sent.
 */
export function signRequestOf(
  jwt: string,
  tokenSecret: string,
  fresh: (nonce: number) => boolean,
): SignRequest | 'as-sent' | undefined {
  const payload = jwtPayload(jwt);
  const alg = jwtHeader(jwt)?.alg;
  const ours =
    payload !== undefined &&
    (alg === 'HS256' || alg === 'HS512') &&
    forgeJwt(payload, { secret: tokenSecret, alg }) === jwt;
  if (!ours) return 'as-sent';
  const delegate = typeof payload.delegate_path === 'string';
  const request: SignRequest = {
    tokenId: String(payload.token_id),
    path: String(delegate ? payload.delegate_path : payload.path),
  };
  if (delegate) request.delegate = true;
  if (typeof payload.oauth_request_public_id === 'string')
    request.oauthPublicId = payload.oauth_request_public_id;
  if (typeof payload.oauth_request_private_id === 'string')
    request.oauthPrivateId = payload.oauth_request_private_id;
  if (payload.nonce === undefined) request.nonce = null;
  else if (typeof payload.nonce !== 'number' || !fresh(payload.nonce))
    request.nonce = payload.nonce as number;
  if (alg !== 'HS256') request.alg = alg;
  // Re-signing must give back this very payload, but for the iat and jti a JWT without nonce
  // gets anew; a JWT with other fields is shown as it is.
  const again = jwtPayload(signFor({ ...request, nonce: payload.nonce as number | null }, 'x'));
  if (JSON.stringify(signedFields(again)) !== JSON.stringify(signedFields(payload))) {
    return undefined;
  }
  return request;
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The shell command that signs `request` again, reading the secret from the environment. */
export function signCommand(request: SignRequest): string {
  const parts = ['npx exchange-conformance sign', '--token-id', quote(request.tokenId)];
  parts.push('--path', quote(request.path));
  if (request.delegate) parts.push('--delegate');
  if (request.oauthPublicId !== undefined)
    parts.push('--oauth-public-id', quote(request.oauthPublicId));
  if (request.oauthPrivateId !== undefined)
    parts.push('--oauth-private-id', quote(request.oauthPrivateId));
  if (request.nonce === null) parts.push('--no-nonce');
  else if (request.nonce !== undefined) parts.push('--nonce', String(request.nonce));
  if (request.alg) parts.push('--alg', request.alg);
  return parts.join(' ');
}

/**
 * The shell command that signs a session JWT again. The run's session secret is written in it:
 * no shell of the reader holds it, and it is a secret of a session the run made for itself.
 */
export function sessionSignCommand(request: SessionSignRequest): string {
  return `${sessionSecretVariable}=${quote(request.sessionSecret)} npx exchange-conformance sign --session-id ${quote(request.sessionId)} --path ${quote(request.path)}`;
}
