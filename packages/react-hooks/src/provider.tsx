import {
  createPartnerClient,
  type PartnerClient,
  type PartnerClientOptions,
} from '@exchange-kit/partner-client';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useMemo } from 'react';
import { createSessionKeeper, type SessionKeeper } from './session-keeper.js';

/**
 * What a browser may know of the partner: the partners URL and the public API key, plus how to
 * talk to the server. The token id and secret are typed out: intents, which need them, are
 * created by the application's own backend.
 */
export type QuickExchangeConfig = Omit<PartnerClientOptions, 'tokenId' | 'tokenSecret'> & {
  tokenId?: never;
  tokenSecret?: never;
};

/**
 * What the hooks and the query option factories work with: the partner client, the public
 * key, and the keeper of session secrets (in memory). The provider makes one; a server that
 * prefetches makes its own with createQuickExchange.
 */
export interface QuickExchange {
  client: PartnerClient;
  publicApiKey: string;
  sessions: SessionKeeper;
}

// JavaScript callers get no type error, so a secret is refused here as well as by the
// partner client's browser build: server rendering uses its Node build, which would take it.
function refuseToken(config: QuickExchangeConfig): void {
  if ('tokenSecret' in config || 'tokenId' in config) {
    throw new TypeError(
      'QuickExchangeProvider takes no tokenId or tokenSecret: create intents on your backend',
    );
  }
}

/** A QuickExchange from the browser configuration: for prefetching outside React. */
export function createQuickExchange(config: QuickExchangeConfig): QuickExchange {
  refuseToken(config);
  const {
    partnersUrl,
    publicApiKey,
    fetch,
    timeoutMs,
    retry,
    rateLimit,
    validateResponses,
    hooks,
  } = config;
  const client = createPartnerClient({
    partnersUrl,
    publicApiKey,
    ...(fetch === undefined ? {} : { fetch }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(retry === undefined ? {} : { retry }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
    ...(validateResponses === undefined ? {} : { validateResponses }),
    ...(hooks === undefined ? {} : { hooks }),
  });
  return { client, publicApiKey, sessions: createSessionKeeper(client) };
}

const QuickExchangeContext = createContext<QuickExchange | null>(null);

export type QuickExchangeProviderProps = (
  | { config: QuickExchangeConfig; quickExchange?: never }
  /** One made with createQuickExchange, shared with route loaders that prefetch with it. */
  | { quickExchange: QuickExchange; config?: never }
) & {
  /** Wraps the children in a QueryClientProvider; leave out when the app already has one. */
  queryClient?: QueryClient;
  children?: ReactNode;
};

/** What makes one configuration differ from another, for keeping one client per configuration. */
function configFields(config: QuickExchangeConfig | undefined): unknown[] {
  if (!config) return [];
  const {
    partnersUrl,
    publicApiKey,
    fetch,
    timeoutMs,
    retry,
    rateLimit,
    validateResponses,
    hooks,
  } = config;
  return [partnersUrl, publicApiKey, fetch, timeoutMs, retry, rateLimit, validateResponses, hooks];
}

/**
 * Gives the Quick Exchange hooks below it a partner client made from the browser configuration
 * (or the QuickExchange passed), with its own in-memory keeper of session secrets.
 */
export function QuickExchangeProvider(props: QuickExchangeProviderProps) {
  const { queryClient, children, quickExchange, config } = props;
  if (config) refuseToken(config);
  const fields = configFields(config);
  // The configuration is often written inline: its fields decide, not the object.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the fields stand for config
  const value = useMemo(
    () => quickExchange ?? createQuickExchange(config as QuickExchangeConfig),
    [quickExchange, ...fields],
  );
  const provided = (
    <QuickExchangeContext.Provider value={value}>{children}</QuickExchangeContext.Provider>
  );
  return queryClient ? (
    <QueryClientProvider client={queryClient}>{provided}</QueryClientProvider>
  ) : (
    provided
  );
}

/** The partner client, public key and session keeper of the nearest QuickExchangeProvider. */
export function useQuickExchange(): QuickExchange {
  const value = useContext(QuickExchangeContext);
  if (!value) throw new Error('Quick Exchange hooks must be used inside <QuickExchangeProvider>');
  return value;
}
