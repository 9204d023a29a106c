import {
  createPartnerClient,
  type PartnerClient,
  type PartnerClientOptions,
} from '@exchange-kit/partner-client';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useMemo } from 'react';

/**
 * What a browser may know of the partner: the partners URL and the public API key, plus how to
 * talk to the server. The token id and secret are typed out: intents, which need them, are
 * created by the application's own backend.
 */
export type QuickExchangeConfig = Omit<PartnerClientOptions, 'tokenId' | 'tokenSecret'> & {
  tokenId?: never;
  tokenSecret?: never;
};

interface QuickExchangeContextValue {
  client: PartnerClient;
  publicApiKey: string;
}

const QuickExchangeContext = createContext<QuickExchangeContextValue | null>(null);

export interface QuickExchangeProviderProps {
  config: QuickExchangeConfig;
  /** Wraps the children in a QueryClientProvider; leave out when the app already has one. */
  queryClient?: QueryClient;
  children?: ReactNode;
}

/** Gives the Quick Exchange hooks below it a partner client made from the browser configuration. */
export function QuickExchangeProvider({
  config,
  queryClient,
  children,
}: QuickExchangeProviderProps) {
  // JavaScript callers get no type error, so a secret is refused here as well as by the
  // partner client's browser build: server rendering uses its Node build, which would take it.
  if ('tokenSecret' in config || 'tokenId' in config) {
    throw new TypeError(
      'QuickExchangeProvider takes no tokenId or tokenSecret: create intents on your backend',
    );
  }
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
  const value = useMemo(
    () => ({
      publicApiKey,
      client: createPartnerClient({
        partnersUrl,
        publicApiKey,
        ...(fetch === undefined ? {} : { fetch }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(retry === undefined ? {} : { retry }),
        ...(rateLimit === undefined ? {} : { rateLimit }),
        ...(validateResponses === undefined ? {} : { validateResponses }),
        ...(hooks === undefined ? {} : { hooks }),
      }),
    }),
    [partnersUrl, publicApiKey, fetch, timeoutMs, retry, rateLimit, validateResponses, hooks],
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

/** The partner client and public key of the nearest QuickExchangeProvider. */
export function useQuickExchange(): QuickExchangeContextValue {
  const value = useContext(QuickExchangeContext);
  if (!value) throw new Error('Quick Exchange hooks must be used inside <QuickExchangeProvider>');
  return value;
}
