import { createExchangeClient } from '@exchange-kit/exchange-client';

const client = createExchangeClient({
  baseUrl: process.env.SANDBOX_URL ?? 'http://127.0.0.1:4000',
  tokenId: process.env.SANDBOX_TOKEN_ID ?? '3141592',
  tokenSecret: process.env.SANDBOX_TOKEN_SECRET ?? 'sandbox-demo-secret-not-for-production-use',
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

// One call's own options come last: its signal, its timeout per attempt, its retries.
const book = await client.products.priceLevels(1, {
  signal: AbortSignal.timeout(5_000),
  timeoutMs: 2_000,
  retry: false,
});
console.log(`${book.buy_price_levels.length} bid levels for product 1`);
