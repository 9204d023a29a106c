import type { IncomingMessage } from 'node:http';
import { notAllowed, type Serialized, uncachedJson } from '../http/reply-cache.js';
import type { Sequencer } from '../state/sequencer.js';
import { type ConsoleApiOptions, consoleApi } from './console-api.js';
import { consolePage, consoleScriptFiles } from './console-page.js';
import { indexPage } from './index-page.js';
import { oauthPage } from './oauth-page.js';

export interface PagesOptions extends ConsoleApiOptions {
  sequencer: Sequencer;
  now: () => number;
  /** The docs site the index page links to, when one runs beside the sandbox. */
  docsUrl?: string;
}

/**
 * What the sandbox serves besides the two interfaces: the index page, a health check, the
 * OAuth approval page and an icon. Undefined for any other path, which the interfaces' routes answer.
 */
/** What a browser asks for on any page of the sandbox, JSON ones too: answered, not a 404. */
const favicon: Serialized = {
  status: 200,
  headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' },
  bytes: Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#3451b2"/></svg>',
  ),
};

export function sandboxPages(options: PagesOptions) {
  const oauth = oauthPage(options);
  const index = indexPage(options);
  const consoleHtml = consolePage();
  const scripts = consoleScriptFiles();
  const consoleCalls = consoleApi(options);
  return async (request: IncomingMessage, pathname: string): Promise<Serialized | undefined> => {
    const consoleAnswer = await consoleCalls(request, pathname);
    if (consoleAnswer) return consoleAnswer;
    const challenge = /^\/oauth\/([^/]+)$/.exec(pathname);
    if (challenge) return oauth(request, challenge[1] ?? '');
    // The partner interface's base URL, as the banner prints it, leads to the same page.
    const home = pathname === '/' || pathname === '/api/v1' || pathname === '/api/v1/';
    const page = home
      ? index
      : pathname === '/favicon.ico'
        ? favicon
        : pathname === '/health'
          ? uncachedJson(200, { status: 'ok' })
          : pathname === '/console'
            ? consoleHtml
            : scripts.get(pathname);
    if (!page) return undefined;
    const method = request.method ?? 'GET';
    if (method === 'GET' || method === 'HEAD') return page;
    return notAllowed('GET, HEAD', `${method} is not allowed on ${pathname}: it takes GET, HEAD`);
  };
}
