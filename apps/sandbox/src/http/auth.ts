import { operationTable as exchangeOperations } from '@exchange-kit/contract/exchange';
import { createVerifier } from 'fast-jwt';
import { decodeJwt, type JWTPayload } from 'jose';
import type { Caller, Queryable } from '../domain/operation.js';
import type { ExchangeState } from '../exchange/state.js';
import { oauthPermissions } from '../exchange/users.js';
import { HttpError } from './refusals.js';
import type { Route } from './router.js';
import { specs } from './spec.js';

/** An authentication refusal: 401 with one of the conventional plain-text bodies. */
export class AuthError extends Error {}

const failed = () => new AuthError('API Authentication failed');
const pathMismatch = () => new AuthError('Path does not match');
const nonceTooSmall = () => new AuthError('Nonce is too small');

export interface AuthRequest {
  route: Route;
  /** The request path with its query string, exactly as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** A POST /orders whose body carries a client_order_id may leave the nonce out. */
  nonceOptional: boolean;
  now: number;
  /** Where the tokens and the last nonce of each scope are kept. */
  state: ExchangeState;
}

/** A nonce the call carries: accepted (see acceptNonce) once the whole call is let in. */
export interface Nonce {
  scope: string;
  value: bigint;
}

export interface Authenticated {
  caller: Caller;
  nonce?: Nonce;
}

/** Finds the secret of a Quick Exchange user session, if there is such a session. */
export type SessionSecretLookup = (db: Queryable, sessionId: string) => Promise<string | undefined>;

function header(headers: AuthRequest['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function securityOf(route: Route): Record<string, string[]>[] {
  return route.operation.security ?? specs[route.api].security ?? [];
}

/** An operation anyone may call: its answer depends on nothing but the request and the store. */
export function isPublic(route: Route): boolean {
  return securityOf(route).every((requirement) => Object.keys(requirement).length === 0);
}

// One verifier per secret: fast-jwt verifies synchronously, so a call is decided without
// waiting on the thread pool that Web Crypto's HMAC goes through.
const verifiers = new Map<string, (jwt: string) => JWTPayload>();
const maxVerifiers = 10_000;

/** Verifies an HS256 JWT; any other algorithm, `none` included, is refused. */
function verify(jwt: string, secret: string): JWTPayload {
  let verifier = verifiers.get(secret);
  if (!verifier) {
    if (verifiers.size >= maxVerifiers) verifiers.clear();
    verifier = createVerifier({ key: secret, algorithms: ['HS256'] }) as (
      jwt: string,
    ) => JWTPayload;
    verifiers.set(secret, verifier);
  }
  try {
    return verifier(jwt);
  } catch {
    throw failed();
  }
}

/** Reads a claim before the signature is checked, only to find which secret checks it. */
function unverifiedClaim(jwt: string, claim: string): string {
  let payload: JWTPayload;
  try {
    payload = decodeJwt(jwt);
  } catch {
    throw failed();
  }
  const value = payload[claim];
  // Nothing printable is a token or session id; a NUL would not even reach the database.
  if (typeof value !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(value)) throw failed();
  return value;
}

/** Refuses `nonce` unless it is larger than the last one accepted for its scope. */
function requireLarger(state: ExchangeState, nonce: Nonce): void {
  const last = state.nonces.get(nonce.scope);
  if (last !== undefined && nonce.value <= last) throw nonceTooSmall();
}

/** Reads the nonce a call carries and refuses it early when it is already too small. */
function checkNonce(state: ExchangeState, scope: string, nonce: unknown): Nonce {
  const text = typeof nonce === 'number' && Number.isSafeInteger(nonce) ? String(nonce) : nonce;
  if (typeof text !== 'string' || !/^(0|[1-9][0-9]{0,30})$/.test(text)) throw failed();
  const checked = { scope, value: BigInt(text) };
  requireLarger(state, checked);
  return checked;
}

/**
 * Spends `nonce`: it must still be larger than the last one accepted for its scope. Runs in
 * the same synchronous step that decides the call, so concurrent calls are ordered here; the
 * caller stores the nonce with the call's changes.
 */
export function acceptNonce(state: ExchangeState, nonce: Nonce): void {
  requireLarger(state, nonce);
  state.nonces.set(nonce.scope, nonce.value);
}

async function sessionCaller(
  db: Queryable,
  request: AuthRequest,
  jwt: string,
  findSessionSecret: SessionSecretLookup,
): Promise<Authenticated> {
  const sessionId = unverifiedClaim(jwt, 'session_id');
  const secret = await findSessionSecret(db, sessionId);
  if (secret === undefined) throw failed();
  const payload = verify(jwt, secret);
  if (payload.path !== request.url) throw pathMismatch();
  const nonce = checkNonce(request.state, `session:${sessionId}`, payload.nonce);
  return { caller: { kind: 'session', sessionId }, nonce };
}

async function serviceCaller(
  db: Queryable,
  request: AuthRequest,
  jwt: string,
): Promise<Authenticated> {
  const tokenId = unverifiedClaim(jwt, 'token_id');
  const token = request.state.tokens.get(tokenId);
  if (!token) throw failed();
  const payload = verify(jwt, token.secret);
  const partnerCall = request.route.operation['x-auth-payload'] === 'PartnerDelegatedPayload';
  const signedPath = partnerCall
    ? payload.path === '/realtime' && payload.delegate_path
    : payload.path;
  if (signedPath !== request.url) throw pathMismatch();
  const nonce =
    payload.nonce !== undefined || !request.nonceOptional
      ? checkNonce(request.state, `token:${tokenId}`, payload.nonce)
      : undefined;
  return { caller: await tokenCaller(db, request, payload, tokenId, token.userId), nonce };
}

async function tokenCaller(
  db: Queryable,
  request: AuthRequest,
  payload: JWTPayload,
  tokenId: string,
  userId: number,
): Promise<Caller> {
  if (request.route.operation['x-auth-payload'] === 'PartnerDelegatedPayload') {
    return partnerCaller(db, request, tokenId, userId);
  }
  const publicId = payload.oauth_request_public_id;
  const privateId = payload.oauth_request_private_id;
  if (publicId === undefined && privateId === undefined) {
    return { kind: 'token', tokenId, userId };
  }
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  if (typeof publicId !== 'string' || typeof privateId !== 'string') throw failed();
  if (!uuid.test(publicId) || !uuid.test(privateId)) throw failed();
  const { rows: approved } = await db.query<{ public_id: string; approved_by_user_id: number }>(
    `SELECT public_id, approved_by_user_id FROM oauth_requests
     WHERE public_id::text = $1 AND private_id::text = $2 AND app_token_id = $3
       AND approved_by_user_id IS NOT NULL AND expires_at > $4`,
    [publicId.toLowerCase(), privateId.toLowerCase(), tokenId, request.now],
  );
  const grant = approved[0];
  if (!grant) throw failed();
  checkGrant(request.route);
  return {
    kind: 'oauth',
    tokenId,
    appUserId: userId,
    userId: grant.approved_by_user_id,
    oauthRequestId: grant.public_id,
  };
}

/**
 * A delegated call does only what its grant says: the operation must state the permission it
 * needs (`x-permission` in the spec) and the grant must hold it.
 */
function checkGrant(route: Route): void {
  const { operationId } = route.operation;
  const needed = (exchangeOperations as Record<string, { permission: string | null }>)[operationId]
    ?.permission;
  if (!needed) {
    throw new HttpError(403, `${operationId} cannot be called for a user through OAuth`);
  }
  if (!oauthPermissions.includes(needed)) {
    throw new HttpError(403, `This OAuth grant lacks the permission ${needed}`);
  }
}

/** The partner application the token's user owns: the one named in the path when it is theirs. */
async function partnerCaller(
  db: Queryable,
  request: AuthRequest,
  tokenId: string,
  userId: number,
): Promise<Caller> {
  const { rows } = await db.query<{ id: number; public_api_key: string }>(
    'SELECT id, public_api_key FROM partner_applications WHERE user_id = $1 ORDER BY id',
    [userId],
  );
  const named = request.url.match(/\/partner\/([^/?]+)/)?.[1];
  const application =
    rows.find((row) => named !== undefined && row.public_api_key === decodeURIComponent(named)) ??
    rows[0];
  if (!application) throw failed();
  return { kind: 'partner', tokenId, userId, partnerId: application.id };
}

/**
 * Establishes who makes the call, as the operation's security in the spec asks: nothing for
 * public operations, X-Service-Auth for ServiceAuth, and an optional session Bearer JWT where
 * the spec allows a call without credentials or with one.
 */
export async function authenticate(
  db: Queryable,
  request: AuthRequest,
  findSessionSecret: SessionSecretLookup,
): Promise<Authenticated> {
  const security = securityOf(request.route);
  const schemes = new Set(security.flatMap((requirement) => Object.keys(requirement)));
  const optional = security.length === 0 || security.some((r) => Object.keys(r).length === 0);
  if (schemes.has('ServiceAuth')) {
    const jwt = header(request.headers, 'X-Service-Auth');
    if (jwt) return serviceCaller(db, request, jwt);
  }
  if (schemes.has('SessionBearer')) {
    const bearer = header(request.headers, 'Authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (bearer) return sessionCaller(db, request, bearer, findSessionSecret);
  }
  if (optional) return { caller: { kind: 'anonymous' } };
  throw failed();
}
