/** Faults of authentication: JWTs, nonces, paths, OAuth grants and client_refs let through. */
import { serviceAuthPayload } from '@exchange-kit/core/auth';
import { forgeJwt, jwtHeader, jwtPayload } from '../../signing/forge.js';
import type { Fault, FaultTools, ProxiedRequest, ProxiedResponse } from '../fault-proxy.js';
import { is, parse, pathname, type Row, status } from './proxied.js';

/** The request with its JWT payload changed and signed again with the real secret and a fresh nonce. */
function resign(request: ProxiedRequest, tools: FaultTools, changes: Row = {}): ProxiedRequest {
  const jwt = request.headers['x-service-auth'];
  const payload = (jwt && jwtPayload(jwt)) || {
    token_id: tools.target.tokenId,
    path: request.path,
  };
  const { nonce } = serviceAuthPayload(tools.target, { path: request.path });
  const signed = forgeJwt({ ...payload, ...changes, nonce }, { secret: tools.target.tokenSecret });
  return { ...request, headers: { ...request.headers, 'x-service-auth': signed } };
}

const header = (jwt: string): Row => jwtHeader(jwt) ?? {};

function signatureValid(jwt: string, secret: string): boolean {
  const payload = jwtPayload(jwt);
  return (
    payload !== undefined && header(jwt).alg === 'HS256' && forgeJwt(payload, { secret }) === jwt
  );
}

export const authFaults: Fault[] = [
  {
    name: 'an operation no OAuth grant covers is refused as unauthenticated, 401 for 403',
    covers: 'AUTH-OAUTH-BEYOND-GRANT',
    response: status(403, 401, 'getOAuthRequest'),
  },
  {
    name: "another trader's order shown to the caller who names its id",
    covers: 'AUTH-OTHER-USERS-OBJECTS',
    testControl: true,
    response: (() => {
      // Every order placed, as its answer showed it: what a server reading by id alone finds.
      const placed = new Map<string, string>();
      return (request: ProxiedRequest, response: ProxiedResponse): ProxiedResponse => {
        if (is(request, 'createOrder') && response.status === 200) {
          placed.set(String((parse(response.body) as Row).id), response.body);
        }
        const id = pathname(request).split('/')[2] ?? '';
        const found = placed.get(id);
        return is(request, 'getOrder') && response.status === 404 && found !== undefined
          ? { ...response, status: 200, body: found }
          : response;
      };
    })(),
  },
  {
    name: 'a private order call without X-Service-Auth is signed for it',
    covers: 'AUTH-MISSING-HEADER',
    request: async (request, tools) =>
      is(request, 'cancelOrder') && !request.headers['x-service-auth']
        ? resign(request, tools, { path: request.path })
        : request,
  },
  {
    name: 'a bad signature is accepted',
    covers: 'AUTH-BAD-SIGNATURE',
    request: (request, tools) => {
      const jwt = request.headers['x-service-auth'];
      return jwt && header(jwt).alg === 'HS256' && !signatureValid(jwt, tools.target.tokenSecret)
        ? resign(request, tools)
        : request;
    },
  },
  {
    name: 'alg none is accepted',
    covers: 'AUTH-ALG-NONE',
    request: (request, tools) => {
      const jwt = request.headers['x-service-auth'];
      return jwt && header(jwt).alg === 'none' ? resign(request, tools) : request;
    },
  },
  {
    name: 'HS512 is accepted',
    covers: 'AUTH-ALG-OTHER',
    request: (request, tools) => {
      const jwt = request.headers['x-service-auth'];
      return jwt && header(jwt).alg === 'HS512' ? resign(request, tools) : request;
    },
  },
  ((): Fault => {
    const seen = new Set<string>();
    return {
      name: 'a replayed JWT is accepted',
      covers: 'AUTH-NONCE-REPLAYED',
      request: (request, tools) => {
        const jwt = request.headers['x-service-auth'];
        if (!jwt) return request;
        if (seen.has(jwt)) return resign(request, tools);
        seen.add(jwt);
        return request;
      },
    };
  })(),
  ((): Fault => {
    const seen = new Set<string>();
    return {
      name: 'an order JWT without nonce places any number of orders',
      covers: 'AUTH-NONCE-LESS-REPLAYED',
      request: (request, tools) => {
        const jwt = request.headers['x-service-auth'];
        if (!jwt || !is(request, 'createOrder') || jwtPayload(jwt)?.nonce !== undefined) {
          return request;
        }
        if (!seen.has(jwt)) {
          seen.add(jwt);
          return request;
        }
        const payload = serviceAuthPayload(tools.target, {
          path: request.path,
          withoutNonce: true,
        });
        const fresh = forgeJwt(payload, { secret: tools.target.tokenSecret });
        return { ...request, headers: { ...request.headers, 'x-service-auth': fresh } };
      },
    };
  })(),
  ((): Fault => {
    let highest = 0;
    return {
      name: 'a smaller nonce is accepted',
      covers: 'AUTH-NONCE-SMALLER',
      request: (request, tools) => {
        const nonce = Number(jwtPayload(request.headers['x-service-auth'] ?? '')?.nonce);
        if (!Number.isFinite(nonce)) return request;
        if (nonce < highest) return resign(request, tools);
        highest = nonce;
        return request;
      },
    };
  })(),
  {
    name: 'a JWT signed for another path is accepted',
    covers: 'AUTH-PATH-MISMATCH',
    request: (request, tools) => {
      const payload = jwtPayload(request.headers['x-service-auth'] ?? '');
      const signed = String(payload?.path ?? '').split('?')[0];
      return payload && payload.path !== '/realtime' && signed !== pathname(request)
        ? resign(request, tools, { path: request.path })
        : request;
    },
  },
  {
    name: 'the query string is left out of the path check',
    covers: 'AUTH-QUERY-MISMATCH',
    request: (request, tools) => {
      const payload = jwtPayload(request.headers['x-service-auth'] ?? '');
      return payload && payload.path === pathname(request) && request.path.includes('?')
        ? resign(request, tools, { path: request.path })
        : request;
    },
  },
  {
    name: 'the ids of an unapproved OAuth request are accepted',
    covers: 'AUTH-OAUTH-UNAPPROVED',
    response: status(401, 200, 'getUserContext'),
  },
  {
    name: 'a call through an OAuth grant is served beyond the grant, as the token itself',
    covers: 'AUTH-OAUTH-BEYOND-GRANT',
    request: (request, tools) =>
      is(request, 'cancelOrder') &&
      jwtPayload(request.headers['x-service-auth'] ?? '')?.oauth_request_public_id
        ? resign(request, tools, {
            oauth_request_public_id: undefined,
            oauth_request_private_id: undefined,
          })
        : request,
  },
  {
    name: 'delegate_path is not checked',
    covers: 'AUTH-PARTNER-DELEGATE-PATH',
    request: (request, tools) => {
      const payload = jwtPayload(request.headers['x-service-auth'] ?? '');
      return payload?.path === '/realtime' && payload.delegate_path !== request.path
        ? resign(request, tools, { delegate_path: request.path })
        : request;
    },
  },
];

/** A client_ref repeated from any session is answered with the transaction it first made. */
export function clientRefShared(): Fault {
  const answered = new Map<string, ProxiedResponse>();
  const refOf = (request: ProxiedRequest) => {
    const ref = (parse(request.body) as Row | undefined)?.client_ref;
    return is(request, 'intentToTrade') && typeof ref === 'string' ? ref : undefined;
  };
  return {
    name: "a client_ref from another session answers with that session's transaction",
    covers: 'AUTH-CLIENT-REF-OTHER-SESSION',
    request(request) {
      const ref = refOf(request);
      return (ref !== undefined && answered.get(ref)) || request;
    },
    response(request, response) {
      const ref = refOf(request);
      if (ref !== undefined && response.status === 202) answered.set(ref, response);
      return response;
    },
  };
}
