import { describeConformance } from '@exchange-kit/conformance/vitest';

// One test per requirement, named by its id; the run happens once before them.
describeConformance(
  'my server',
  async () => ({
    exchangeUrl: process.env.SANDBOX_URL ?? 'http://127.0.0.1:4000',
    partnerUrl: process.env.SANDBOX_URL ?? 'http://127.0.0.1:4000',
    tokenId: process.env.SANDBOX_TOKEN_ID ?? '3141592',
    tokenSecret: process.env.SANDBOX_TOKEN_SECRET ?? 'sandbox-demo-secret-not-for-production-use',
    publicApiKey: process.env.SANDBOX_PUBLIC_API_KEY ?? 'pk_sandbox_demo',
  }),
  { profiles: ['orders', 'loan-book'] },
);
