import type { components } from '@exchange-kit/contract/common';
import { signJwt } from '#sign-jwt';
import { nextNonce } from './nonce.js';

type Schemas = components['schemas'];
export type ServiceAuthPayload = Schemas['ServiceAuthPayload'];
export type OAuthDelegatedPayload = Schemas['OAuthDelegatedPayload'];
export type PartnerDelegatedPayload = Schemas['PartnerDelegatedPayload'];
export type SessionAuthPayload = Schemas['SessionAuthPayload'];

/** An API token created in the exchange web application. */
export interface ApiToken {
  tokenId: string;
  tokenSecret: string;
}

/** The two ids of an OAuth request the user approved. */
export interface OAuthRequestIds {
  publicId: string;
  privateId: string;
}

/** A Quick Exchange user session, as returned by session creation. */
export interface SessionCredentials {
  sessionId: string;
  sessionSecret: string;
}

/** How a call is authenticated; `path` is the request path including its query string. */
export type ServiceAuthRequest =
  | {
      path: string;
      oauth?: undefined;
      delegate?: false;
      /**
       * Leave the nonce out: only a `POST /orders` whose body carries a `client_order_id` may,
       * and then that id is what must not repeat. The JWT then carries a fresh `iat` and a
       * random `jti`: the server takes it for one order, near that time.
       */
      withoutNonce?: boolean;
    }
  | { path: string; oauth: OAuthRequestIds; delegate?: false }
  | { path: string; oauth?: undefined; delegate: true };

/** The X-Service-Auth payload of a call, with a fresh nonce. */
export function serviceAuthPayload(
  token: Pick<ApiToken, 'tokenId'>,
  request: ServiceAuthRequest,
): ServiceAuthPayload | OAuthDelegatedPayload | PartnerDelegatedPayload {
  if (!request.delegate && !request.oauth && request.withoutNonce === true) {
    // Without a nonce the JWT is good for one order and only near its iat; the jti keeps two
    // placed at once, for the same path in the same second, from being one JWT sent twice.
    return {
      token_id: token.tokenId,
      path: request.path,
      iat: Math.floor(Date.now() / 1000),
      jti: globalThis.crypto.randomUUID(),
    };
  }
  const nonce = nextNonce(token.tokenId);
  if (request.delegate) {
    return { token_id: token.tokenId, path: '/realtime', delegate_path: request.path, nonce };
  }
  if (request.oauth) {
    return {
      token_id: token.tokenId,
      path: request.path,
      nonce,
      oauth_request_public_id: request.oauth.publicId,
      oauth_request_private_id: request.oauth.privateId,
    };
  }
  return { token_id: token.tokenId, path: request.path, nonce };
}

/**
 * The X-Service-Auth JWT of one call: at once where the platform signs synchronously (Node),
 * as a promise where it cannot (Web Crypto).
 */
export function serviceAuthJwt(
  token: ApiToken,
  request: ServiceAuthRequest,
): string | Promise<string> {
  return signAuthPayload(serviceAuthPayload(token, request), token.tokenSecret);
}

/**
 * Signs an auth payload as it is given (HS256 JWT): at once on Node, as a promise with Web
 * Crypto. For tools that must sign a payload again with the nonce it was sent with, the one
 * signer every JWT of this package goes through.
 */
export function signAuthPayload(
  payload:
    | ServiceAuthPayload
    | OAuthDelegatedPayload
    | PartnerDelegatedPayload
    | SessionAuthPayload,
  secret: string,
): string | Promise<string> {
  return signJwt(payload, secret);
}

/** A fresh X-Service-Auth JWT for one call (and one for each retry). */
export async function signServiceAuth(
  token: ApiToken,
  request: ServiceAuthRequest,
): Promise<string> {
  return serviceAuthJwt(token, request);
}

/** The session Bearer JWT of one call: at once on Node, as a promise with Web Crypto. */
export function sessionAuthJwt(
  session: SessionCredentials,
  path: string,
): string | Promise<string> {
  const payload: SessionAuthPayload = {
    path,
    session_id: session.sessionId,
    nonce: nextNonce(`session:${session.sessionId}`),
  };
  return signAuthPayload(payload, session.sessionSecret);
}

/** A fresh session Bearer JWT for one Quick Exchange call made for a user session. */
export async function signSessionAuth(session: SessionCredentials, path: string): Promise<string> {
  return sessionAuthJwt(session, path);
}
