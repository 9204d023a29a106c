import { type ApiToken, serviceAuthMiddleware } from '@exchange-kit/core';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/partner.js';

export interface PartnerClientOptions extends Partial<ApiToken> {
  /** The partner interface's base URL, without /api/v1 (the spec's paths carry it). */
  partnersUrl: string;
  /** The partner's public API key. */
  publicApiKey: string;
  /** A fetch to send requests with; the global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

export interface PartnerClient {
  publicApiKey: string;
  /** The typed openapi-fetch client of the partner spec. */
  raw: Client<paths>;
}

/**
 * Partner calls (under /api/v1/partner/{public_api_key}) are the ones the spec secures with
 * X-Service-Auth; they are signed with path /realtime and the real path as delegate_path.
 */
export const isPartnerCall = (path: string) => path.startsWith('/api/v1/partner/');

export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  const raw = createClient<paths>({
    baseUrl: options.partnersUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const { tokenId, tokenSecret } = options;
  if (tokenId !== undefined && tokenSecret !== undefined) {
    raw.use(serviceAuthMiddleware({ tokenId, tokenSecret }, { delegate: isPartnerCall }));
  }
  return { publicApiKey: options.publicApiKey, raw };
}
