import {
  OAuthRequestDeniedError,
  OAuthRequestExpiredError,
  OAuthRequestPendingError,
} from '@exchange-kit/exchange-client';
import { client } from './client.js';

// 1. Your application asks to act for a user.
const request = await client.oauth.createRequest('signup-42');
// 2. Send the user to this URL; they approve or deny there.
console.log(`ask the user to open ${request.app_challenge_href}`);

// Every call of this view carries both request ids in its JWT.
const user = client.forUser({
  publicId: request.oauth_request_public_id,
  privateId: request.oauth_request_private_id,
});

// A call made before the user approved is refused, and the class of the error says why:
// worth waiting on, or not.
async function readContext(): Promise<string> {
  try {
    const context = await user.context();
    return `acting for user ${context.user_id}`;
  } catch (error) {
    if (error instanceof OAuthRequestPendingError) return 'not approved yet: ask again later';
    if (error instanceof OAuthRequestDeniedError) return 'denied: the user said no, stop asking';
    if (error instanceof OAuthRequestExpiredError) return 'expired: create a new request';
    throw error;
  }
}
console.log(await readContext());

// In the sandbox the demo user is the token's own user, so the sample approves for them
// through the API instead of a click. Leave this line out to answer at the URL above yourself.
await client.oauth.approve(request.oauth_request_private_id);

// 3. Poll the request until the user answers; it ends as expired if nobody does.
let { status } = await client.oauth.getRequest(request.oauth_request_public_id);
while (status === 'pending') {
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  ({ status } = await client.oauth.getRequest(request.oauth_request_public_id));
}
console.log(`the request is ${status}`);

// 4. Approved: act for the user until the request expires.
if (status === 'approved') {
  const context = await user.context();
  const accounts = await user.accounts();
  console.log(
    `user ${context.user_id} (${context.status}) holds ${accounts.crypto_accounts.length} crypto accounts`,
  );
  for (const account of accounts.fiat_accounts)
    console.log(`${account.currency}: ${account.balance}`);
}
