import { advanceSandboxClock } from '@exchange-kit/sandbox/testing';
import { scriptedFetch } from '@exchange-kit/test-support/scripted-fetch';
import { QueryClient } from '@tanstack/react-query';
import { act, cleanup, configure } from '@testing-library/react';
import { Component, type ReactNode, StrictMode } from 'react';
import { afterEach, inject, vi } from 'vitest';
import { backendCalls } from '../example/backend-calls.js';
import { type QuickExchangeConfig, QuickExchangeProvider } from '../src/provider.js';

// Vitest's globals are off, so Testing Library cannot register its cleanup by itself: without
// it, hooks of earlier tests would stay mounted (and keep polling).
afterEach(cleanup);
// Every answer comes from a real server over HTTP, slower when the machine is busy.
configure({ asyncUtilTimeout: 5_000 });

/** The sandbox's partner interface, as a browser would be configured for it. */
export function sandboxConfig(overrides: Partial<QuickExchangeConfig> = {}): QuickExchangeConfig {
  return { partnersUrl: inject('partnersUrl'), publicApiKey: inject('publicApiKey'), ...overrides };
}

/** The sandbox whose clock the expiry tests move; no other test uses it. */
export function clockSandboxConfig(): QuickExchangeConfig {
  const { partnersUrl, publicApiKey } = inject('clockSandbox');
  return { partnersUrl, publicApiKey };
}

/** Moves that sandbox's clock forward: its quotes expire as if the time had passed. */
export const advanceClock = (seconds: number): Promise<void> =>
  advanceSandboxClock(inject('clockSandbox'), seconds);

/**
 * What a call made inside act rejects with, caught inside act: an act whose callback rejects
 * leaves React's act queue open, and React then warns of every later update that "the current
 * testing environment is not configured to support act(...)".
 */
export async function rejectionInAct(call: () => Promise<unknown>): Promise<unknown> {
  const outcome = await act(() =>
    call().then(
      () => ({ rejected: false as const }),
      (error: unknown) => ({ rejected: true as const, error }),
    ),
  );
  if (!outcome.rejected) throw new Error('the call resolved: a rejection was expected');
  return outcome.error;
}

/**
 * What `during` logs on console.error, held back from the output: React logs the errors a render
 * throws, which the tests that throw them assert instead of letting them print.
 */
export async function consoleErrorsDuring(during: () => unknown): Promise<string[]> {
  const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    await during();
    return spy.mock.calls.map((args) =>
      args
        .map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg)))
        .join(' '),
    );
  } finally {
    spy.mockRestore();
  }
}

/** The application's backend: intent creation and loading happen there, with the token. */
export const backend = () => backendCalls(inject('backendUrl'));

/** A fetch that counts the requests it sends, by method and path, with their Authorization. */
export function countingFetch() {
  const { fetch, sent } = scriptedFetch([], { otherwise: globalThis.fetch });
  const made = (call: string) =>
    sent.filter(({ request }) => `${request.method} ${new URL(request.url).pathname}` === call);
  return {
    fetch,
    sent,
    count: (call: string) => made(call).length,
    authorizations: (call: string) =>
      made(call).map(({ request }) => request.headers.get('authorization')),
  };
}

/** A renderHook/render wrapper with a fresh cache, optionally under StrictMode. */
export function providerWrapper(
  options: { config?: QuickExchangeConfig; strict?: boolean; queryClient?: QueryClient } = {},
) {
  const queryClient =
    options.queryClient ?? new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const config = options.config ?? sandboxConfig();
  const wrapper = ({ children }: { children: ReactNode }) => {
    const tree = (
      <QuickExchangeProvider config={config} queryClient={queryClient}>
        {children}
      </QuickExchangeProvider>
    );
    return options.strict ? <StrictMode>{tree}</StrictMode> : tree;
  };
  return { wrapper, queryClient };
}

/** Ends a transaction in the sandbox, which never moves one past PENDING by itself. */
export async function finishTransaction(transactionId: string, status: 'FILLED' | 'CANCELLED') {
  const response = await fetch(
    `${inject('backendUrl')}/test/transactions/${transactionId}/status`,
    {
      method: 'POST',
      body: JSON.stringify({ status }),
    },
  );
  if (response.status !== 204) throw new Error(`could not end ${transactionId}`);
}

/** Shows "failed" once a child throws, and hands the error to `onError`. */
export class ErrorBoundary extends Component<
  { children: ReactNode; onError: (error: unknown) => void },
  { failed: boolean }
> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(error: unknown) {
    this.props.onError(error);
  }
  override render() {
    return this.state.failed ? <p>failed</p> : this.props.children;
  }
}
