import { type SandboxProcess, startSandboxProcess } from '@exchange-kit/sandbox/testing';

/**
 * The sandbox the tests run against: a fresh one in its own process, or, when
 * DOCS_TEST_SANDBOX_URL is set, one already running with the demo credentials.
 */
export async function sandboxForTests(): Promise<SandboxProcess> {
  const url = process.env.DOCS_TEST_SANDBOX_URL;
  if (!url) return startSandboxProcess();
  return {
    exchangeUrl: url,
    partnerUrl: url,
    tokenId: process.env.SANDBOX_TOKEN_ID ?? '3141592',
    tokenSecret: process.env.SANDBOX_TOKEN_SECRET ?? 'sandbox-demo-secret-not-for-production-use',
    publicApiKey: process.env.SANDBOX_PUBLIC_API_KEY ?? 'pk_sandbox_demo',
    stop: async () => {},
  };
}
