import { createExchangeClient } from '@exchange-kit/exchange-client';

// The variables the sandbox prints when it starts, with the demo values it uses when they are
// unset. The token secret signs every call: it stays on your server.
export const credentials = {
  baseUrl: process.env.SANDBOX_URL ?? 'http://127.0.0.1:4000',
  tokenId: process.env.SANDBOX_TOKEN_ID ?? '3141592',
  tokenSecret: process.env.SANDBOX_TOKEN_SECRET ?? 'sandbox-demo-secret-not-for-production-use',
};

export const client = createExchangeClient(credentials);
