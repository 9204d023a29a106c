/**
 * The hooks' reads as TanStack query options: prefetch them in a route loader or on a server,
 * read them with useQuery or useSuspenseQuery, and hydrate a server's cache in the browser.
 */
// #region options
import {
  createQuickExchange,
  intentQueryOptions,
  type LoadIntent,
  QuickExchangeProvider,
  transactionQueryOptions,
  useSuspenseTransactionQuery,
} from '@exchange-kit/react-hooks';
import {
  type DehydratedState,
  dehydrate,
  HydrationBoundary,
  QueryClient,
  useQuery,
} from '@tanstack/react-query';
import { type ReactNode, Suspense } from 'react';

// One QuickExchange for the provider and for loaders: the same keeper of session secrets.
const quickExchange = createQuickExchange({
  partnersUrl: 'http://127.0.0.1:4000',
  publicApiKey: 'pk_sandbox_demo',
});
const queryClient = new QueryClient();

/** A route loader: the transaction is in the cache before its page renders. */
export function loadCheckout(transactionId: string) {
  return queryClient.ensureQueryData(transactionQueryOptions(quickExchange, transactionId));
}

/** The same options with TanStack's own hooks, `select` included. */
function StatusLine({ transactionId }: { transactionId: string }) {
  const { data: status } = useQuery({
    ...transactionQueryOptions(quickExchange, transactionId),
    select: (transaction) => transaction.status,
  });
  return <p>{status ?? 'Loading…'}</p>;
}

/** Suspense: the component renders once the transaction is there. */
function Checkout({ transactionId }: { transactionId: string }) {
  const { data: transaction } = useSuspenseTransactionQuery(transactionId);
  return <p>{transaction.status}</p>;
}

export function CheckoutPage({ transactionId }: { transactionId: string }) {
  return (
    <QuickExchangeProvider quickExchange={quickExchange} queryClient={queryClient}>
      <StatusLine transactionId={transactionId} />
      <Suspense fallback={<p>Loading…</p>}>
        <Checkout transactionId={transactionId} />
      </Suspense>
    </QuickExchangeProvider>
  );
}
// #endregion options

// #region ssr
/** On the server, per request: prefetch, then put the dehydrated cache into the page. */
export async function prefetchIntent(intentId: string, load: LoadIntent): Promise<DehydratedState> {
  const requestCache = new QueryClient();
  await requestCache.prefetchQuery(intentQueryOptions(intentId, load));
  return dehydrate(requestCache);
}

/** In the browser: the page's state fills the cache, and nothing is fetched again. */
export function Hydrated({ state, children }: { state: DehydratedState; children: ReactNode }) {
  return <HydrationBoundary state={state}>{children}</HydrationBoundary>;
}
// #endregion ssr
