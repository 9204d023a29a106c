/**
 * TanStack Query keys of everything the hooks cache. Each level is a prefix of the ones below
 * it, so `invalidateQueries({ queryKey: quickExchangeKeys.transactions() })` reaches every
 * transaction and `quickExchangeKeys.all` everything.
 */
const all = ['exchange-kit', 'quick-exchange'] as const;

export const quickExchangeKeys = {
  all,
  sessions: () => [...all, 'session'] as const,
  /** The user session opened with this public API key. Invalidating it keeps the session. */
  session: (publicApiKey: string) => [...all, 'session', publicApiKey] as const,
  intents: () => [...all, 'intent'] as const,
  /** An intent, as the application's loader returns it. */
  intent: (intentId: string) => [...all, 'intent', intentId] as const,
  transactions: () => [...all, 'transaction'] as const,
  /** A transaction with its instructions, polled while it settles. */
  transaction: (transactionId: string) => [...all, 'transaction', transactionId] as const,
  /** The creation of the transaction named by a client_ref: one request however often asked. */
  transactionCreation: (clientRef: string) => [...all, 'transaction-creation', clientRef] as const,
};
