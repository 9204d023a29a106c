import { type ApiToken, serviceAuthMiddleware } from '@exchange-kit/core';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/exchange.js';

export interface ExchangeClientOptions extends ApiToken {
  /** The exchange's base URL, for example https://api.exchange.example (no trailing slash). */
  baseUrl: string;
  /** A fetch to send requests with; the global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

export interface ExchangeClient {
  /** The typed openapi-fetch client of the exchange spec; every request it sends is signed. */
  raw: Client<paths>;
}

export function createExchangeClient(options: ExchangeClientOptions): ExchangeClient {
  const { baseUrl, tokenId, tokenSecret } = options;
  const raw = createClient<paths>({
    baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  raw.use(serviceAuthMiddleware({ tokenId, tokenSecret }));
  return { raw };
}
