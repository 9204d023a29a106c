/**
 * Server rendering with data: a server prefetches with the query option factories, renders,
 * and dehydrates the cache into the page; the browser hydrates it and shows the same thing
 * without asking again. The session secret stays on the server.
 */
import {
  type DehydratedState,
  dehydrate,
  HydrationBoundary,
  QueryClient,
} from '@tanstack/react-query';
import { act, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { useIntent } from '../src/intent.js';
import { createQuickExchange, QuickExchangeProvider } from '../src/provider.js';
import {
  intentQueryOptions,
  sessionQueryOptions,
  transactionQueryOptions,
} from '../src/queries.js';
import { useUserSession } from '../src/session.js';
import { useSuspenseTransactionQuery } from '../src/transaction-calls.js';
import { backend, countingFetch, sandboxConfig } from './support.js';

function Checkout({ intentId, transactionId }: { intentId: string; transactionId: string }) {
  const session = useUserSession();
  const intent = useIntent(intentId, {}, { staleTime: Number.POSITIVE_INFINITY });
  const { data: transaction } = useSuspenseTransactionQuery(transactionId);
  return (
    <p>
      {session.data?.environment} / {intent.data?.payout_settlement?.currency} /{' '}
      {transaction.status}
    </p>
  );
}

function Page(props: {
  intentId: string;
  transactionId: string;
  state: DehydratedState;
  queryClient: QueryClient;
  fetch: typeof globalThis.fetch;
}) {
  return (
    <QuickExchangeProvider
      config={sandboxConfig({ fetch: props.fetch })}
      queryClient={props.queryClient}
    >
      <HydrationBoundary state={props.state}>
        <Suspense fallback={<p>Loading…</p>}>
          <Checkout intentId={props.intentId} transactionId={props.transactionId} />
        </Suspense>
      </HydrationBoundary>
    </QuickExchangeProvider>
  );
}

describe('prefetch on a server, dehydrate, hydrate in the browser', () => {
  it('renders the prefetched session, intent and transaction, and the browser asks nothing again', async () => {
    // The server: its own QuickExchange, whose keeper holds the session secret it opened.
    const server = createQuickExchange(sandboxConfig());
    const serverCache = new QueryClient();
    const created = await backend().createIntent({ currency: 'BTC', quantity: '0.004' });
    const session = await serverCache.fetchQuery(
      sessionQueryOptions(server, { userLocale: 'en-SG' }),
    );
    const transaction = await server.sessions.clientFor(session.sessionId).transactions.create({
      session_id: session.sessionId,
      side: 'buy',
      symbol: 'BTC/USDC',
      currency: 'BTC',
      quantity: '0.004',
    });
    const load = backend().loadIntent;
    await Promise.all([
      serverCache.prefetchQuery(intentQueryOptions(created.id, load)),
      serverCache.prefetchQuery(
        transactionQueryOptions(server, transaction.transaction_id, {
          sessionId: session.sessionId,
        }),
      ),
    ]);
    const state = JSON.parse(JSON.stringify(dehydrate(serverCache))) as DehydratedState;
    expect(JSON.stringify(state)).not.toMatch(/session_secret/);
    expect(state.queries).toHaveLength(3);

    const ids = { intentId: created.id, transactionId: transaction.transaction_id };
    const { fetch: serverFetch } = countingFetch();
    const html = renderToString(
      <Page {...ids} state={state} queryClient={new QueryClient()} fetch={serverFetch} />,
    );
    expect(html.replace(/<!--.*?-->/g, '')).toBe(
      '<p>SANDBOX / BTC / SETTLEMENT_METHOD_REQUIRED</p>',
    );

    // The browser: a fresh cache, hydrated from the page.
    const { fetch, count } = countingFetch();
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.append(container);
    const recoverable: unknown[] = [];
    const browserCache = new QueryClient({
      defaultOptions: { queries: { staleTime: 60_000, retry: false } },
    });
    await act(async () => {
      hydrateRoot(
        container,
        <Page {...ids} state={state} queryClient={browserCache} fetch={fetch} />,
        { onRecoverableError: (error) => recoverable.push(error) },
      );
    });
    await waitFor(() =>
      expect(container.textContent).toBe('SANDBOX / BTC / SETTLEMENT_METHOD_REQUIRED'),
    );
    expect(recoverable).toEqual([]);
    expect(count('POST /api/v1/session')).toBe(0);
    expect(count(`GET /api/v1/transaction/status/${transaction.transaction_id}`)).toBe(0);
    container.remove();
  });
});
