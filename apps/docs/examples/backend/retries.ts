// #region retries
import { createExchangeClient } from '@exchange-kit/exchange-client';
import { env } from '../sandbox-env.js';

const client = createExchangeClient({
  baseUrl: env.exchangeUrl,
  tokenId: env.tokenId,
  tokenSecret: env.tokenSecret,
  timeoutMs: 10_000, // per attempt
  // 429 and 503 are retried for GET, PUT and DELETE, honouring Retry-After.
  retry: { retries: 3, baseDelayMs: 250, maxDelayMs: 5_000 },
  rateLimit: true, // stay under 600 calls per 5 minutes per token, shared by the process
  hooks: {
    onRetry: (event) => console.warn(`retrying ${event.method} ${event.url}: ${event.reason}`),
    onResponse: (event) => console.log(`${event.method} ${event.url} ${event.status}`),
  },
});

const ladder = await client.loanBook.get('BTC');
console.log(`${ladder.bids.length} loan offers for BTC`);
// #endregion retries
