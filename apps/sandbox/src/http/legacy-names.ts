/**
 * The exchange's earlier names, which bots and libraries written before the description still
 * send (`exchange-surface.md`, "Compatibility with existing clients"). The edge turns them into
 * the description's names before a call is routed or authenticated, so nothing past it sees
 * them; the JWT still signs the path as it was sent.
 */
import type { ApiName } from '@exchange-kit/contract/documents';
import { HttpError } from './refusals.js';
import { apiOfPath, type Route } from './router.js';
import type { SentQuery } from './validate.js';

/** Earlier header name → the description's, lower-case as Node hands headers over. */
export const legacyHeaderNames = {
  'x-quoine-auth': 'x-service-auth',
  'x-quoine-api-version': 'x-service-api-version',
} as const;

/** Query values of the earlier clients → the description's, per parameter. */
const legacyQueryValues: Record<string, Record<string, string>> = {
  // What sends `true` for one sends `false` for the other.
  with_details: { true: '1', false: '0' },
};

type Headers = Record<string, string | string[] | undefined>;

/**
 * The headers under the description's names. A call that sends both names of one header with
 * different values is refused: which one it meant cannot be known.
 */
function withDescriptionHeaders(headers: Headers): Headers {
  let renamed: Headers | undefined;
  for (const [legacy, name] of Object.entries(legacyHeaderNames)) {
    const value = headers[legacy];
    if (value === undefined) continue;
    const current = headers[name];
    if (current !== undefined && String(current) !== String(value)) {
      throw new HttpError(400, `${legacy} and ${name} disagree`, {
        [legacy]: [`differs_from_${name}`],
      });
    }
    renamed ??= { ...headers };
    renamed[name] = value;
    delete renamed[legacy];
  }
  return renamed ?? headers;
}

/** The query with earlier values replaced by the description's (`with_details=true` is `1`, `false` is `0`). */
function withDescriptionQuery(query: SentQuery): SentQuery {
  let replaced: SentQuery | undefined;
  for (const [name, values] of Object.entries(legacyQueryValues)) {
    const value = query[name];
    if (typeof value !== 'string' || !Object.hasOwn(values, value)) continue;
    const description = values[value] as string;
    replaced ??= { ...query };
    replaced[name] = description;
  }
  return replaced ?? query;
}

/** A call's headers and query under the description's names; the partner interface has no others. */
export function withDescriptionNames<Call extends { headers: Headers; query: SentQuery }>(
  api: ApiName,
  call: Call,
): Call {
  if (api !== 'exchange') return call;
  return {
    ...call,
    headers: withDescriptionHeaders(call.headers),
    query: withDescriptionQuery(call.query),
  };
}

/**
 * The URL to route: on an exchange path, a trailing slash dropped (`/orders/` is `/orders`).
 * Only routing reads it; authentication reads the URL as sent.
 */
export function routedUrl(routes: Route[], url: string): string {
  const queryAt = url.indexOf('?');
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  if (pathname.length < 2 || !pathname.endsWith('/')) return url;
  if (apiOfPath(routes, pathname) !== 'exchange') return url;
  return pathname.slice(0, -1) + url.slice(pathname.length);
}
