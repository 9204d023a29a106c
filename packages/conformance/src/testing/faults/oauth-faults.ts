import type { Fault } from '../fault-proxy.js';
import { is, type Row, withJson } from './proxied.js';

/** Denied, pending and state reads of OAuth requests, as the conventions name them. */
export const oauthStateFaults: Fault[] = [
  {
    name: 'an OAuth request past its expires still reads pending',
    covers: 'OAUTH-EXPIRED',
    testControl: true,
    response: (request, response) =>
      is(request, 'getOAuthRequest') && response.status === 200
        ? { ...response, body: response.body.replace('"status":"expired"', '"status":"pending"') }
        : response,
  },
  {
    name: 'a pending OAuth request is refused as any bad credential is, naming nothing',
    covers: 'OAUTH-PENDING-REFUSED',
    response: (request, response) =>
      is(request, 'getUserContext') && response.status === 401 && response.body.includes('pending')
        ? {
            ...response,
            headers: { ...response.headers, 'content-type': 'text/plain; charset=utf-8' },
            body: 'API Authentication failed',
          }
        : response,
  },
  {
    name: 'a denied OAuth request reads as a pending one',
    covers: 'OAUTH-DENIED-REFUSED',
    testControl: true,
    response: (request, response) =>
      is(request, 'getUserContext') && response.status === 401
        ? { ...response, body: response.body.replace('"denied"', '"pending"') }
        : response,
  },
  {
    name: 'the state of an OAuth request always reads pending',
    covers: 'OAUTH-STATE-READ',
    response: (request, response) =>
      is(request, 'getOAuthRequest') && response.status === 200
        ? withJson(response, (body) => ({ ...(body as Row), status: 'pending', decided_at: null }))
        : response,
  },
];
