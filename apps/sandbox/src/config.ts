/** Demo credentials of the sandbox, from the environment, with fixed defaults for a first run. */
export interface DemoCredentials {
  /** API token of the demo user, who also owns the demo partner application. */
  tokenId: string;
  tokenSecret: string;
  /** Public API key of the demo partner application. */
  publicApiKey: string;
  /** API token of a second demo user, to try acting for someone else at the approval page. */
  secondTokenId: string;
  secondTokenSecret: string;
}

export const defaultCredentials: DemoCredentials = {
  tokenId: '3141592',
  tokenSecret: 'sandbox-demo-secret-not-for-production-use',
  publicApiKey: 'pk_sandbox_demo',
  secondTokenId: '2718281',
  secondTokenSecret: 'sandbox-second-demo-secret-not-for-production-use',
};

/** Which of the credentials were left at their defaults, so only those are printed in full. */
export interface CredentialSources {
  credentials: DemoCredentials;
  defaulted: Record<keyof DemoCredentials, boolean>;
}

export function credentialsFromEnv(env: NodeJS.ProcessEnv = process.env): CredentialSources {
  const pick = (name: string, fallback: string) => {
    const value = env[name];
    return value === undefined || value === ''
      ? { value: fallback, defaulted: true }
      : { value, defaulted: false };
  };
  const variables: Record<keyof DemoCredentials, string> = {
    tokenId: 'SANDBOX_TOKEN_ID',
    tokenSecret: 'SANDBOX_TOKEN_SECRET',
    publicApiKey: 'SANDBOX_PUBLIC_API_KEY',
    secondTokenId: 'SANDBOX_SECOND_TOKEN_ID',
    secondTokenSecret: 'SANDBOX_SECOND_TOKEN_SECRET',
  };
  const credentials = { ...defaultCredentials };
  const defaulted = {} as CredentialSources['defaulted'];
  for (const key of Object.keys(variables) as (keyof DemoCredentials)[]) {
    const picked = pick(variables[key], defaultCredentials[key]);
    credentials[key] = picked.value;
    defaulted[key] = picked.defaulted;
  }
  return { credentials, defaulted };
}
