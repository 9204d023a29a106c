// #region env
/** Where the sandbox listens and its demo credentials, as `pnpm start` prints them. */
export const env = {
  exchangeUrl: process.env.EXCHANGE_URL ?? 'http://127.0.0.1:4000',
  partnersUrl: process.env.PARTNERS_URL ?? 'http://127.0.0.1:4000',
  tokenId: process.env.TOKEN_ID ?? '3141592',
  tokenSecret: process.env.TOKEN_SECRET ?? 'sandbox-demo-secret-not-for-production-use',
  publicApiKey: process.env.PUBLIC_API_KEY ?? 'pk_sandbox_demo',
};
// #endregion env
