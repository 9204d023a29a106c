import { client } from './client.js';

// 1. Your application asks to act for a user.
const request = await client.oauth.createRequest('signup-42');
// 2. Send the user to this URL; they approve there.
console.log(`ask the user to open ${request.app_challenge_href}`);

// In the sandbox the demo user is the token's own user, so the sample approves for them
// through the API instead of a click.
await client.oauth.approve(request.oauth_request_private_id);

// 3. Once approved, every call of this view carries both request ids in its JWT.
const user = client.forUser({
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
