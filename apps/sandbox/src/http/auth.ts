import type { components } from '@exchange-kit/contract/common';
import { bundledDocuments } from '@exchange-kit/contract/documents';
import { operationTable as exchangeOperations } from '@exchange-kit/contract/exchange';
import { createVerifier } from 'fast-jwt';
import { decodeJwt, type JWTPayload } from 'jose';
import { oauthRequestStatus } from '../exchange/oauth.js';
import { oauthPermissions } from '../exchange/users.js';
import { canonicalUuid } from '../handling/ids.js';
import type { Caller } from '../handling/operation.js';
import type { SandboxState } from '../state/sandbox-state.js';
import { AuthError } from './auth-error.js';
import { checkOneUse, type OneUseToken } from './nonce-less.js';
import { HttpError } from './refusals.js';
import { perRoute, type Route } from './router.js';

export { AuthError };

type OAuthRequestRefusalCode = components['schemas']['OAuthRequestRefusalCode'];

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
  /**
   * The wall clock's time, which a JWT's `iat` is set by: a token without nonce is checked
   * against it, since moving the sandbox's clock does not move the caller's.
   */
  wallNow: number;
  /** Where the tokens, grants, sessions and the last nonce of each scope are kept. */
  state: SandboxState;
}

/** A nonce the call carries: accepted (see acceptNonce) once the whole call is let in. */
export interface Nonce {
  scope: string;
  value: bigint;
}

export interface Authenticated {
  caller: Caller;
  nonce?: Nonce;
  /** A JWT without nonce (POST /orders with a client_order_id): good for this one call. */
  oneUse?: OneUseToken;
}

/** Finds the secret of a Quick Exchange user session, if there is such a session. */
export type SessionSecretLookup = (state: SandboxState, sessionId: string) => string | undefined;

function header(headers: AuthRequest['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function securityOf(route: Route): Record<string, string[]>[] {
  return route.operation.security ?? bundledDocuments[route.api].security ?? [];
}

/** The schemes an operation accepts, and whether it may be called with none. */
const schemesOf = perRoute((route) => {
  const security = securityOf(route);
  return {
    schemes: new Set(security.flatMap((requirement) => Object.keys(requirement))),
    optional: security.length === 0 || security.some((r) => Object.keys(r).length === 0),
  };
});

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
function requireLarger(state: SandboxState, nonce: Nonce): void {
  const last = state.nonces.get(nonce.scope);
  if (last !== undefined && nonce.value <= last) throw nonceTooSmall();
}

/** Reads the nonce a call carries and refuses it early when it is already too small. */
function checkNonce(state: SandboxState, scope: string, nonce: unknown): Nonce {
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
export function acceptNonce(state: SandboxState, nonce: Nonce): void {
  requireLarger(state, nonce);
  state.nonces.set(nonce.scope, nonce.value);
}

function sessionCaller(
  request: AuthRequest,
  jwt: string,
  findSessionSecret: SessionSecretLookup,
): Authenticated {
  const sessionId = canonicalUuid(unverifiedClaim(jwt, 'session_id'));
  if (sessionId === undefined) throw failed();
  const secret = findSessionSecret(request.state, sessionId);
  if (secret === undefined) throw failed();
  const payload = verify(jwt, secret);
  if (payload.path !== request.url) throw pathMismatch();
  const nonce = checkNonce(request.state, `session:${sessionId}`, payload.nonce);
  return { caller: { kind: 'session', sessionId }, nonce };
}

function serviceCaller(request: AuthRequest, jwt: string): Authenticated {
  const tokenId = unverifiedClaim(jwt, 'token_id');
  const token = request.state.exchange.tokens.get(tokenId);
  if (!token) throw failed();
  const payload = verify(jwt, token.secret);
  const partnerCall = request.route.operation['x-auth-payload'] === 'PartnerDelegatedPayload';
  const signedPath = partnerCall
    ? payload.path === '/realtime' && payload.delegate_path
    : payload.path;
  if (signedPath !== request.url) throw pathMismatch();
  const caller = tokenCaller(request, payload, tokenId, token.userId);
  if (payload.nonce === undefined && request.nonceOptional) {
    return { caller, oneUse: checkOneUse(request.state, tokenId, jwt, payload, request.wallNow) };
  }
  return { caller, nonce: checkNonce(request.state, `token:${tokenId}`, payload.nonce) };
}

function tokenCaller(
  request: AuthRequest,
  payload: JWTPayload,
  tokenId: string,
  userId: number,
): Caller {
  if (request.route.operation['x-auth-payload'] === 'PartnerDelegatedPayload') {
    return partnerCaller(request, tokenId, userId);
  }
  const grant = grantOf(request.state, payload, tokenId, request.now);
  if (!grant) return { kind: 'token', tokenId, userId };
  checkGrant(request.route);
  return {
    kind: 'oauth',
    tokenId,
    appUserId: userId,
    userId: grant.userId,
    oauthRequestId: grant.publicId,
  };
}

/**
 * The approved OAuth request a JWT names by its ids, and the user who approved it; undefined
 * when the JWT names none. Ids of a request that is not the token's own are refused as any
 * bad credential is; the token's own request that does not act for its user says why.
 */
function grantOf(
  state: SandboxState,
  payload: JWTPayload,
  tokenId: string,
  now: number,
): { publicId: string; userId: number } | undefined {
  const publicId = payload.oauth_request_public_id;
  const privateId = payload.oauth_request_private_id;
  if (publicId === undefined && privateId === undefined) return undefined;
  const publicKey = canonicalUuid(publicId);
  const privateKey = canonicalUuid(privateId);
  if (publicKey === undefined || privateKey === undefined) throw failed();
  const grant = state.exchange.oauthRequests.get(publicKey);
  if (!grant || grant.privateId !== privateKey || grant.appTokenId !== tokenId) throw failed();
  const status = oauthRequestStatus(grant, now);
  if (status !== 'approved') throw refusedGrant(status);
  // An approved request names its user; the check keeps the type honest.
  if (grant.approvedByUserId === null) throw failed();
  return { publicId: grant.publicId, userId: grant.approvedByUserId };
}

/**
 * The token proved it holds both ids of its own request, so it is told why the request does
 * not act for the user (OAuthRequestRefusal): waiting on a pending request is worth it, on a
 * denied or expired one it is not.
 */
function refusedGrant(code: OAuthRequestRefusalCode): HttpError {
  return new HttpError(401, `OAuth request ${code}`, { oauth_request_public_id: [code] });
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
function partnerCaller(request: AuthRequest, tokenId: string, userId: number): Caller {
  const applications = request.state.partner.applicationsOf(userId);
  const named = request.url.match(/\/partner\/([^/?]+)/)?.[1];
  const application =
    applications.find(
      (row) => named !== undefined && row.publicApiKey === decodeURIComponent(named),
    ) ?? applications[0];
  if (!application) throw failed();
  return { kind: 'partner', tokenId, userId, partnerId: application.id };
}

/**
 * Establishes who makes the call, as the operation's security in the spec asks: nothing for
 * public operations, X-Service-Auth for ServiceAuth, and an optional session Bearer JWT where
 * the spec allows a call without credentials or with one.
 */
export function authenticate(
  request: AuthRequest,
  findSessionSecret: SessionSecretLookup,
): Authenticated {
  const { schemes, optional } = schemesOf(request.route);
  if (schemes.has('ServiceAuth')) {
    const jwt = header(request.headers, 'X-Service-Auth');
    if (jwt) return serviceCaller(request, jwt);
  }
  if (schemes.has('SessionBearer')) {
    const authorization = header(request.headers, 'Authorization');
    // A credential that was sent and cannot be read is refused: it never falls back to
    // anonymous, where the caller would believe its call authenticated.
    if (authorization !== undefined) {
      const bearer = authorization.match(/^Bearer\s+(\S+)$/i)?.[1];
      if (!bearer) throw new AuthError('Authorization must be "Bearer <session JWT>"');
      return sessionCaller(request, bearer, findSessionSecret);
    }
  }
  if (optional) return { caller: { kind: 'anonymous' } };
  throw failed();
}

/**
 * The user a websocket connection acts for, from the JWT of its `quoine:auth_request`: the
 * usual X-Service-Auth JWT, signed for the path "/realtime", with a nonce larger than the
 * token's last (spend it with acceptNonce as the connection is let in). A JWT with the ids
 * of an approved OAuth request acts for the user who approved it.
 */
export function authenticateRealtime(
  state: SandboxState,
  jwt: string,
  now: number,
): { userId: number; nonce: Nonce } {
  const tokenId = unverifiedClaim(jwt, 'token_id');
  const token = state.exchange.tokens.get(tokenId);
  if (!token) throw failed();
  const payload = verify(jwt, token.secret);
  if (payload.path !== '/realtime') throw pathMismatch();
  const nonce = checkNonce(state, `token:${tokenId}`, payload.nonce);
  const grant = grantOf(state, payload, tokenId, now);
  return { userId: grant?.userId ?? token.userId, nonce };
}
