/** Demo credentials of the sandbox, from the environment, with fixed defaults for a first run. */
export interface DemoCredentials {
  /** API token of the demo user, who also owns the demo partner application. */
  tokenId: string;
  tokenSecret: string;
  /** Public API key of the demo partner application. */
  publicApiKey: string;
}

export const defaultCredentials: DemoCredentials = {
  tokenId: '3141592',
  tokenSecret: 'sandbox-demo-secret-not-for-production-use',
  publicApiKey: 'pk_sandbox_demo',
};

/** Which of the credentials were left at their defaults, so only those are printed in full. */
export interface CredentialSources {
  credentials: DemoCredentials;
  defaulted: { tokenId: boolean; tokenSecret: boolean; publicApiKey: boolean };
}

export function credentialsFromEnv(env: NodeJS.ProcessEnv = process.env): CredentialSources {
  const pick = (name: string, fallback: string) => {
    const value = env[name];
    return value === undefined || value === ''
      ? { value: fallback, defaulted: true }
      : { value, defaulted: false };
  };
  const tokenId = pick('SANDBOX_TOKEN_ID', defaultCredentials.tokenId);
  const tokenSecret = pick('SANDBOX_TOKEN_SECRET', defaultCredentials.tokenSecret);
  const publicApiKey = pick('SANDBOX_PUBLIC_API_KEY', defaultCredentials.publicApiKey);
  return {
    credentials: {
      tokenId: tokenId.value,
      tokenSecret: tokenSecret.value,
      publicApiKey: publicApiKey.value,
    },
    defaulted: {
      tokenId: tokenId.defaulted,
      tokenSecret: tokenSecret.defaulted,
      publicApiKey: publicApiKey.defaulted,
    },
  };
}
