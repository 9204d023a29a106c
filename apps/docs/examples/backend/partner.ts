import { createPartnerClient } from '@exchange-kit/partner-client';

// On your server: the token secret signs intent creation and the transaction listing.
export const partner = createPartnerClient({
  partnersUrl: process.env.SANDBOX_URL ?? 'http://127.0.0.1:4000',
  publicApiKey: process.env.SANDBOX_PUBLIC_API_KEY ?? 'pk_sandbox_demo',
  tokenId: process.env.SANDBOX_TOKEN_ID ?? '3141592',
  tokenSecret: process.env.SANDBOX_TOKEN_SECRET ?? 'sandbox-demo-secret-not-for-production-use',
});
