import type { IncomingMessage } from 'node:http';
import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import type { Sequencer } from '../state/sequencer.js';
import { indexPage } from './index-page.js';
import { oauthPage } from './oauth-page.js';

export interface PagesOptions {
  sequencer: Sequencer;
  now: () => number;
  /** The docs site the index page links to, when one runs beside the sandbox. */
  docsUrl?: string;
}

/**
 * What the sandbox serves besides the two interfaces: the index page, a health check and the
 * OAuth approval page. Undefined for any other path, which the interfaces' routes answer.
 */
export function sandboxPages(options: PagesOptions) {
  const oauth = oauthPage(options);
  const index = indexPage(options);
  return async (request: IncomingMessage, pathname: string): Promise<Serialized | undefined> => {
    const method = request.method ?? 'GET';
    // The partner interface's base URL, as the banner prints it, leads to the same page.
    const home = pathname === '/' || pathname === '/api/v1' || pathname === '/api/v1/';
    if (home && (method === 'GET' || method === 'HEAD')) return index;
    if (pathname === '/health' && (method === 'GET' || method === 'HEAD')) {
      return uncachedJson(200, { status: 'ok' });
    }
    const challenge = /^\/oauth\/([^/]+)$/.exec(pathname);
    if (challenge) return oauth(request, challenge[1] ?? '');
    return undefined;
  };
}
