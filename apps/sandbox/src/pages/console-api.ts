import type { IncomingMessage } from 'node:http';
import { signAuthPayload } from '@exchange-kit/core/auth';
import type { DemoCredentials } from '../config.js';
import type { Caller, Handlers } from '../handling/operation.js';
import { decideAs, parseQuery, replyOf } from '../http/call-pipeline.js';
import { notAllowed, type Serialized, uncachedJson } from '../http/reply-cache.js';
import { buildRoutes, findRoute, type Route } from '../http/router.js';
import type { Sequencer } from '../state/sequencer.js';

export interface ConsoleApiOptions {
  sequencer: Sequencer;
  now: () => number;
  /** The operations' handlers: a console read is answered by the same handler as the REST call. */
  handlers: Handlers;
  credentials: DemoCredentials;
  /** Whether the sandbox serves `/test/...`, so the page shows its buttons. */
  testControl: boolean;
}

const prefix = '/console/api/';

/**
 * What the console page reads and is issued, so that it holds no token secret:
 *
 * - `GET /console/api/session`: the demo users the page may show, and whether test control is on.
 * - `GET /console/api/users/{user_id}/exchange/<path>`: the exchange interface's `GET /<path>`
 *   answered as that user, by the operation's own handler, with no JWT and so no nonce spent.
 * - `POST /console/api/users/{user_id}/realtime`: a JWT for `/realtime`, signed here with the
 *   user's token, for the page's `quoine:auth_request`. Its nonce is one past the token's last,
 *   so it is good once, and only until the token signs anything else.
 * - `GET /console/api/partner/<path>`: the demo partner's `GET /api/v1/partner/{key}/<path>`.
 *
 * Why this is safe: the real service has no such path, only the sandbox serves it; it acts for
 * the demo users alone, whose credentials the sandbox prints in its banner anyway, and only
 * reads (an exchange `GET`, or events). It answers its own origin only: a request whose
 * `Origin` or `Sec-Fetch-Site` names another site is refused, and the answers carry no CORS
 * header, so another site's page can neither call it nor read what it answers.
 */
export function consoleApi(options: ConsoleApiOptions) {
  const routes = buildRoutes();
  const { sequencer, credentials } = options;
  const demoTokenIds = [credentials.tokenId, credentials.secondTokenId];

  function demoUser(userId: string): { tokenId: string; userId: number } | undefined {
    for (const tokenId of demoTokenIds) {
      const token = sequencer.state.exchange.tokens.get(tokenId);
      if (token && String(token.userId) === userId) return { tokenId, userId: token.userId };
    }
    return undefined;
  }

  /** Answers a GET of the interfaces as `caller` would be answered, changing nothing. */
  async function read(api: Route['api'], url: string, caller: Caller): Promise<Serialized> {
    const [pathname = '', search = ''] = url.split('?', 2);
    const found = findRoute(routes, 'GET', pathname);
    if (found.kind !== 'matched' || found.match.route.api !== api) {
      return uncachedJson(404, { message: `No read at ${pathname}` });
    }
    const { route, path } = found.match;
    const handler = options.handlers[route.operation.operationId];
    if (!handler) return uncachedJson(404, { message: `No read at ${pathname}` });
    const call = { route, path, query: parseQuery(search), body: undefined, now: options.now() };
    const reply = await replyOf(
      sequencer,
      await sequencer.run((journal) => decideAs(handler, call, caller, journal)),
      api,
    );
    return uncachedJson(reply.status, reply.body);
  }

  async function answer(request: IncomingMessage, rest: string): Promise<Serialized> {
    const method = request.method ?? 'GET';
    const query = (request.url ?? '').indexOf('?');
    const search = query < 0 ? '' : (request.url ?? '').slice(query);
    if (rest === 'session') {
      if (method !== 'GET') return notAllowed('GET', 'The console session takes GET');
      const users = demoTokenIds.flatMap((tokenId) => {
        const token = sequencer.state.exchange.tokens.get(tokenId);
        const user = token && sequencer.state.exchange.users.get(token.userId);
        return user ? [{ user_id: user.id, email: user.email }] : [];
      });
      return uncachedJson(200, { users, test_control: options.testControl });
    }
    const partner = /^partner\/(.+)$/.exec(rest)?.[1];
    if (partner !== undefined) {
      if (method !== 'GET') return notAllowed('GET', 'Console reads take GET');
      const tokenId = credentials.tokenId;
      const userId = sequencer.state.exchange.tokens.get(tokenId)?.userId ?? 0;
      const application = sequencer.state.partner
        .applicationsOf(userId)
        .find((row) => row.publicApiKey === credentials.publicApiKey);
      if (!application) return uncachedJson(404, { message: 'No demo partner' });
      const key = encodeURIComponent(application.publicApiKey);
      const caller = { kind: 'partner' as const, tokenId, userId, partnerId: application.id };
      return read('partner', `/api/v1/partner/${key}/${partner}${search}`, caller);
    }
    const user = /^users\/([^/]+)\/(exchange\/.+|realtime)$/.exec(rest);
    const found = user && demoUser(user[1] ?? '');
    if (!user || !found) {
      return uncachedJson(404, { message: 'The console shows the demo users alone' });
    }
    if (user[2] === 'realtime') {
      if (method !== 'POST') return notAllowed('POST', 'A realtime JWT is issued on POST');
      const last = sequencer.state.nonces.get(`token:${found.tokenId}`) ?? 0n;
      const payload = { token_id: found.tokenId, path: '/realtime', nonce: String(last + 1n) };
      const secret = sequencer.state.exchange.tokens.get(found.tokenId)?.secret ?? '';
      return uncachedJson(200, { jwt: await signAuthPayload(payload, secret) });
    }
    if (method !== 'GET') return notAllowed('GET', 'Console reads take GET');
    const path = (user[2] ?? '').slice('exchange'.length);
    return read('exchange', `${path}${search}`, { kind: 'token', ...found });
  }

  return async (request: IncomingMessage, pathname: string): Promise<Serialized | undefined> => {
    if (!pathname.startsWith(prefix)) return undefined;
    if (!sameOrigin(request)) {
      return uncachedJson(403, { message: 'origin: the console answers its own origin only' });
    }
    return answer(request, pathname.slice(prefix.length));
  };
}

/** A browser names the page's origin on every call but a same-origin GET, which it may leave out. */
function sameOrigin(request: IncomingMessage): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
