import {
  type ApiToken,
  type OAuthRequestIds,
  type SessionCredentials,
  signServiceAuth,
  signSessionAuth,
} from './service-auth.js';

export interface ServiceAuthOptions {
  /** Sign for a user through an approved OAuth request. */
  oauth?: OAuthRequestIds;
  /** Which paths are partner calls, signed with path /realtime and delegate_path. */
  delegate?: (path: string) => boolean;
}

/** An attempt as the transport hands it over; a Request fits too. */
type Attempt = { readonly headers: Pick<Headers, 'set'> };

/**
 * Adds a fresh X-Service-Auth JWT for the exact path (query string included) to an attempt.
 * `withoutNonce` leaves the nonce out of a call made with one's own token; partner and OAuth
 * calls always carry one.
 */
export function serviceAuthenticator(token: ApiToken, options: ServiceAuthOptions = {}) {
  return async (
    request: Attempt,
    path: string,
    sign?: { withoutNonce?: boolean },
  ): Promise<void> => {
    const jwt = options.delegate?.(path)
      ? await signServiceAuth(token, { path, delegate: true })
      : options.oauth
        ? await signServiceAuth(token, { path, oauth: options.oauth })
        : await signServiceAuth(token, { path, withoutNonce: sign?.withoutNonce === true });
    request.headers.set('X-Service-Auth', jwt);
  };
}

/** Adds a fresh session Bearer JWT to an attempt. */
export function sessionAuthenticator(session: SessionCredentials) {
  return async (request: Attempt, path: string): Promise<void> => {
    request.headers.set('Authorization', `Bearer ${await signSessionAuth(session, path)}`);
  };
}
