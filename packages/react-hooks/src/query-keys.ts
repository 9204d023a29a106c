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
  /** Where an intent hook without an intent id keeps its idle query, dropped on unmount. */
  noIntent: () => [...all, 'no-intent'] as const,
  transactions: () => [...all, 'transaction'] as const,
  /** A transaction with its instructions, polled while it settles. */
  transaction: (transactionId: string) => [...all, 'transaction', transactionId] as const,
  /**
   * The creation of the transaction named by a client_ref in a session: one request however
   * often asked. A new session makes a new transaction.
   */
  transactionCreation: (clientRef: string, sessionId: string) =>
    [...all, 'transaction-creation', clientRef, sessionId] as const,
  /**
   * A settlement change (a method chosen, a parameter given) while its request is in flight:
   * the same change asked again joins it. Dropped once it ends.
   */
  settlementChange: (transactionId: string, change: object) =>
    [...all, 'settlement-change', transactionId, change] as const,
  /**
   * Where a transaction hook without a transaction id keeps its idle query: outside
   * `transactions()`, and dropped as soon as the hook unmounts.
   */
  noTransaction: () => [...all, 'no-transaction'] as const,
};

const market = ['exchange-kit', 'exchange'] as const;

/**
 * Keys of the trading hooks (`@exchange-kit/react-hooks/trading`): the exchange's public book
 * and fills of a product, kept live by its channels. Each level is a prefix of the ones below.
 */
export const exchangeKeys = {
  all: market,
  orderBooks: () => [...market, 'order-book'] as const,
  /** A product's book: both sides, from the REST read, then its `priceLadders` channels. */
  orderBook: (productId: string, pair: string) =>
    [...market, 'order-book', productId, pair.toLowerCase()] as const,
  executions: () => [...market, 'executions'] as const,
  /** A product's recent fills, newest first: the REST read, then its `executionsCash` channel. */
  executionsOf: (productId: string, pair: string) =>
    [...market, 'executions', productId, pair.toLowerCase()] as const,
};
