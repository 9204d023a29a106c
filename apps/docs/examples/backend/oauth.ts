import { createExchangeClient } from '@exchange-kit/exchange-client';
import { env } from '../sandbox-env.js';

const app = createExchangeClient({
  baseUrl: env.exchangeUrl,
  tokenId: env.tokenId,
  tokenSecret: env.tokenSecret,
});

// #region request
// 1. Your application asks to act for a user.
const request = await app.oauth.createRequest('signup-42');
// 2. Send the user to this URL; they approve there.
console.log(`ask the user to open ${request.app_challenge_href}`);
// #endregion request

// In the sandbox the demo user approves through the API (the user's own token signs this).
await app.oauth.approve(request.oauth_request_private_id);

// #region for-user
// 3. Once approved, every call of this view carries both request ids in its JWT.
const user = app.forUser({
  publicId: request.oauth_request_public_id,
  privateId: request.oauth_request_private_id,
});
const context = await user.context();
const accounts = await user.accounts();
console.log(
  `user ${context.user_id} (${context.status}) holds ${accounts.crypto_accounts.length} crypto accounts`,
);
for (const account of accounts.fiat_accounts)
  console.log(`${account.currency}: ${account.balance}`);
// #endregion for-user
