// #region vitest
import { describeConformance } from '@exchange-kit/conformance/vitest';

// One test per requirement, named by its id; the run happens once before them.
describeConformance(
  'my server',
  async () => ({
    exchangeUrl: 'http://127.0.0.1:4000',
    partnerUrl: 'http://127.0.0.1:4000',
    tokenId: process.env.TOKEN_ID ?? '3141592',
    tokenSecret: process.env.TOKEN_SECRET ?? 'sandbox-demo-secret-not-for-production-use',
    publicApiKey: 'pk_sandbox_demo',
  }),
  { profiles: ['orders', 'loan-book'] },
);
// #endregion vitest
