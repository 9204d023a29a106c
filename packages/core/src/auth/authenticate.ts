import {
  type ApiToken,
  type OAuthRequestIds,
  type SessionCredentials,
  serviceAuthJwt,
  sessionAuthJwt,
} from './service-auth.js';

export interface ServiceAuthOptions {
  /** Sign for a user through an approved OAuth request. */
  oauth?: OAuthRequestIds;
}

/** An attempt as the transport hands it over; a Request fits too. */
type Attempt = { readonly headers: Pick<Headers, 'set'> };

/** Sets the header once the JWT is in hand: at once when it was signed synchronously. */
function setWhenSigned(
  request: Attempt,
  name: string,
  jwt: string | Promise<string>,
  prefix = '',
): void | Promise<void> {
  if (typeof jwt === 'string') {
    request.headers.set(name, prefix + jwt);
    return;
  }
  return jwt.then((value) => request.headers.set(name, prefix + value));
}

/**
 * Adds a fresh X-Service-Auth JWT for the exact path (query string included) to an attempt.
 * `withoutNonce` leaves the nonce out of a call made with one's own token; partner and OAuth
 * calls always carry one. `delegate`, set for the operations the contract signs with the
 * partner's delegated payload, signs `/realtime` with the path as `delegate_path`. On Node it signs synchronously, so the sender writes the call in
 * the same turn it signs it.
 */
export function serviceAuthenticator(token: ApiToken, options: ServiceAuthOptions = {}) {
  return (
    request: Attempt,
    path: string,
    sign?: { withoutNonce?: boolean; delegate?: boolean },
  ): void | Promise<void> => {
    const jwt = sign?.delegate
      ? serviceAuthJwt(token, { path, delegate: true })
      : options.oauth
        ? serviceAuthJwt(token, { path, oauth: options.oauth })
        : serviceAuthJwt(token, { path, withoutNonce: sign?.withoutNonce === true });
    return setWhenSigned(request, 'X-Service-Auth', jwt);
  };
}

/** Adds a fresh session Bearer JWT to an attempt. */
export function sessionAuthenticator(session: SessionCredentials) {
  return (request: Attempt, path: string): void | Promise<void> =>
    setWhenSigned(request, 'Authorization', sessionAuthJwt(session, path), 'Bearer ');
}
