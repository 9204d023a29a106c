/**
 * Sends a fuzzed request to the sandbox over real HTTP, exactly as written: node's own HTTP
 * client, because fetch would resolve `..` segments and re-encode the path before sending.
 */
import http from 'node:http';
import type { ApiName } from '@exchange-kit/contract/documents';
import {
  type ApiToken,
  type SessionCredentials,
  signServiceAuth,
  signSessionAuth,
} from '@exchange-kit/core/auth';
import type { FuzzRequest } from './fuzz-requests.js';

/** What the sandbox answered one fuzzed request. */
export interface FuzzResponse {
  /** The request as it went out, placeholders filled in. */
  sent: FuzzRequest;
  status: number;
  contentType: string;
  text: string;
}

export interface SandboxCaller {
  send(request: FuzzRequest): Promise<FuzzResponse>;
  /** Closes the kept-alive connections. */
  close(): void;
}

export interface CallerOptions {
  urls: Record<ApiName, string>;
  token: ApiToken;
  session: SessionCredentials;
  /** How long one answer may take before the call counts as hung. */
  timeoutMs: number;
  /** Fills the placeholders of known values into a path or a body. */
  fillIn(text: string): string;
}

const forgedToken = (token: ApiToken): ApiToken => ({ ...token, tokenSecret: 'not-the-secret' });

/** The credential headers of a request, signed afresh: every signature carries a new nonce. */
export async function credentialHeaders(
  request: FuzzRequest,
  options: CallerOptions,
): Promise<Record<string, string>> {
  if (request.credential === 'anonymous' || request.signing === 'none') return {};
  const forged = request.credential === 'forged';
  const token = forged ? forgedToken(options.token) : options.token;
  switch (request.signing) {
    case 'service':
      return { 'x-service-auth': await signServiceAuth(token, { path: request.url }) };
    case 'delegated':
      return {
        'x-service-auth': await signServiceAuth(token, { path: request.url, delegate: true }),
      };
    case 'session': {
      const session = forged
        ? { ...options.session, sessionSecret: 'not-the-secret' }
        : options.session;
      return { authorization: `Bearer ${await signSessionAuth(session, request.url)}` };
    }
  }
}

export function sandboxCaller(options: CallerOptions): SandboxCaller {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  return {
    async send(written) {
      const request: FuzzRequest = {
        ...written,
        url: options.fillIn(written.url),
        ...(written.body === undefined ? {} : { body: options.fillIn(written.body) }),
      };
      const headers: Record<string, string> = await credentialHeaders(request, options);
      if (request.contentType !== undefined) headers['content-type'] = request.contentType;
      const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
      if (body) headers['content-length'] = String(body.length);
      const base = new URL(options.urls[request.api]);
      return new Promise<FuzzResponse>((resolve, reject) => {
        const call = http.request(
          {
            agent,
            host: base.hostname,
            port: base.port,
            method: request.method,
            path: request.url,
            headers,
            timeout: options.timeoutMs,
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', reject);
            response.on('end', () =>
              resolve({
                sent: request,
                status: response.statusCode ?? 0,
                contentType: response.headers['content-type'] ?? '',
                text: Buffer.concat(chunks).toString('utf8'),
              }),
            );
          },
        );
        call.on('timeout', () => call.destroy(new Error(`no answer in ${options.timeoutMs} ms`)));
        call.on('error', reject);
        call.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}
