import { QueryClient } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { describe, expect, it } from 'vitest';
import {
  backend,
  consoleErrorsDuring,
  ErrorBoundary,
  providerWrapper,
  sandboxConfig,
} from '../test/support.js';
import { useSuspenseIntent } from './intent.js';
import { createQuickExchange } from './provider.js';
import { sessionQueryOptions, transactionQueryOptions } from './queries.js';
import { useSuspenseUserSession } from './session.js';
import { useSuspenseTransactionQuery } from './transaction-calls.js';

describe('query option factories', () => {
  it("hand the query's signal to the client call: a cancelled query stops its request", async () => {
    // Reads leave a moment later than asked, so that the query is cancelled while they wait.
    const signals: AbortSignal[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.method === 'GET') {
        signals.push(init?.signal ?? request.signal);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      return globalThis.fetch(input, init);
    };
    const quickExchange = createQuickExchange(sandboxConfig({ fetch }));
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const session = await queryClient.fetchQuery(sessionQueryOptions(quickExchange));
    const created = await quickExchange.sessions.clientFor(session.sessionId).transactions.create({
      session_id: session.sessionId,
      side: 'buy',
      symbol: 'BTC/USDC',
      currency: 'BTC',
      quantity: '0.01',
    });
    const options = transactionQueryOptions(quickExchange, created.transaction_id, {
      sessionId: session.sessionId,
    });

    const read = queryClient.fetchQuery(options).catch((error: unknown) => error);
    await waitFor(() => expect(signals).toHaveLength(1));
    await queryClient.cancelQueries({ queryKey: options.queryKey });
    await read;
    expect(signals[0]?.aborted).toBe(true);

    // ensureQueryData reads it when it is not cached, and hands back what is cached after.
    const ensured = await queryClient.ensureQueryData(options);
    expect(ensured.transaction_id).toBe(created.transaction_id);
    expect(await queryClient.ensureQueryData(options)).toBe(ensured);
    expect(signals).toHaveLength(2);
  });
});

function SuspendedSession({ intentId }: { intentId: string }) {
  const { data: session } = useSuspenseUserSession();
  return <SuspendedCheckout sessionId={session.sessionId} intentId={intentId} />;
}

function SuspendedCheckout({ sessionId, intentId }: { sessionId: string; intentId: string }) {
  const { data: loaded } = useSuspenseIntent(intentId, backend().loadIntent);
  return (
    <p>
      {loaded.payout_settlement?.currency} for {sessionId.length > 0 ? 'a session' : ''}
    </p>
  );
}

function SuspendedUnknownTransaction() {
  useSuspenseTransactionQuery('00000000-0000-4000-8000-000000000000');
  return <p>never</p>;
}

describe('Suspense hooks', () => {
  it('suspend until the session, the intent and the transaction are there', async () => {
    const intent = await backend().createIntent({ currency: 'ETH', quantity: '0.2' });
    const { wrapper: Wrapper, queryClient } = providerWrapper();
    render(
      <Wrapper>
        <Suspense fallback={<p>Loading…</p>}>
          <SuspendedSession intentId={intent.id} />
        </Suspense>
      </Wrapper>,
    );
    expect(screen.getByText('Loading…')).toBeDefined();
    await screen.findByText('ETH for a session');

    const session = queryClient.getQueryData(
      sessionQueryOptions(createQuickExchange(sandboxConfig())).queryKey,
    );
    expect(session?.environment).toBe('SANDBOX');
  });

  it('throws a failed read to the error boundary above, typed', async () => {
    const { wrapper: Wrapper } = providerWrapper();
    let caught: unknown;
    const logged = await consoleErrorsDuring(async () => {
      render(
        <Wrapper>
          <ErrorBoundary onError={(error) => (caught = error)}>
            <Suspense fallback={<p>Loading…</p>}>
              <SuspendedUnknownTransaction />
            </Suspense>
          </ErrorBoundary>
        </Wrapper>,
      );
      await screen.findByText('failed');
    });
    // This sandbox wants the session JWT, which a stranger to the transaction does not have.
    expect(caught).toMatchObject({ name: 'AuthenticationError', status: 401 });
    // React reports the error the boundary caught, once.
    expect(logged).toEqual([
      expect.stringMatching(
        /AuthenticationError: .*The above error occurred in the <SuspendedUnknownTransaction> component/s,
      ),
    ]);
  });
});
