import type { IncomingMessage } from 'node:http';
import type { Serialized } from '../http/reply-cache.js';
import type { Database } from '../store/database.js';
import { oauthPage } from './oauth-page.js';

export interface PagesOptions {
  db: Database;
  now: () => number;
}

/**
 * What the sandbox serves besides the two interfaces: the OAuth approval page. Undefined for any other path, which the interfaces' routes answer.
 */
export function sandboxPages(options: PagesOptions) {
  const oauth = oauthPage(options);
  return async (request: IncomingMessage, pathname: string): Promise<Serialized | undefined> => {
    const challenge = /^\/oauth\/([^/]+)$/.exec(pathname);
    if (challenge) return oauth(request, challenge[1] ?? '');
    return undefined;
  };
}
