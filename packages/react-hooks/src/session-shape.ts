import type { components } from '@exchange-kit/partner-client';

type Schemas = components['schemas'];

/**
 * A user session as the hooks keep it. The session_secret the server returns is left out, so
 * nothing that holds this object (the query cache, sessionStorage, server-rendered HTML) holds
 * a secret: it is safe to save and to restore.
 */
export interface QuickExchangeSession {
  sessionId: string;
  environment: Schemas['Environment'];
  suggestedCountry: string;
  defaultTransaction: Schemas['DefaultTransaction'];
  /** The terms of service the user accepts with a transaction. */
  termsOfServiceHref: string;
}
