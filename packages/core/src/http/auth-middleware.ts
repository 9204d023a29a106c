import type { Middleware } from 'openapi-fetch';
import { type ApiToken, type OAuthRequestIds, signServiceAuth } from '../auth/service-auth.js';

export interface ServiceAuthOptions {
  /** Sign for a user through an approved OAuth request. */
  oauth?: OAuthRequestIds;
  /** Which requests are partner calls, signed with path /realtime and delegate_path. */
  delegate?: (path: string) => boolean;
}

/** The path the JWT must carry: the request's own path and query string, exactly as sent. */
export function signedPath(url: string): string {
  const { pathname, search } = new URL(url);
  return pathname + search;
}

/**
 * openapi-fetch middleware that adds a fresh X-Service-Auth JWT to every request. It runs
 * for each attempt, so a retried request carries a new nonce. It never reads the body.
 */
export function serviceAuthMiddleware(
  token: ApiToken,
  options: ServiceAuthOptions = {},
): Middleware {
  return {
    async onRequest({ request }) {
      const path = signedPath(request.url);
      const jwt = options.delegate?.(path)
        ? await signServiceAuth(token, { path, delegate: true })
        : options.oauth
          ? await signServiceAuth(token, { path, oauth: options.oauth })
          : await signServiceAuth(token, { path });
      request.headers.set('X-Service-Auth', jwt);
      return request;
    },
  };
}
