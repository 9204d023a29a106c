import { dehydrate } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { countingFetch, providerWrapper, rejectionInAct, sandboxConfig } from '../test/support.js';
import { quickExchangeKeys } from './query-keys.js';
import { type QuickExchangeSession, useRenewSession, useUserSession } from './session.js';

/** A fetch that keeps the session secrets the server hands out, to look for them afterwards. */
function secretSeeingFetch() {
  const secrets: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (new Request(input, init).url.endsWith('/api/v1/session')) {
      const body = await response.clone().json();
      secrets.push(body.payload.session_secret);
    }
    return response;
  };
  return { fetch, secrets };
}

describe('useUserSession', () => {
  it('opens a session against the sandbox and keeps its secret out of the cache and storage', async () => {
    const { fetch, secrets } = secretSeeingFetch();
    const { wrapper, queryClient } = providerWrapper({ config: sandboxConfig({ fetch }) });
    const { result } = renderHook(() => useUserSession({ userLocale: 'en-JP' }), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('success'));
    expect(result.current.data).toEqual({
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      environment: 'SANDBOX',
      suggestedCountry: 'JP',
      defaultTransaction: {
        funding_settlement: { currency: 'USDC', quantity: '1000' },
        payout_settlement: { currency: 'BTC' },
      },
      termsOfServiceHref: expect.stringMatching(/^https:\/\/.+terms-of-service$/),
    });
    expect(secrets).toHaveLength(1);
    const secret = secrets[0] as string;
    expect(secret.length).toBeGreaterThan(10);
    expect(JSON.stringify(dehydrate(queryClient))).not.toContain(secret);
    expect(
      JSON.stringify(
        queryClient
          .getQueryCache()
          .getAll()
          .map((q) => q.state),
      ),
    ).not.toContain(secret);
    expect([sessionStorage.length, localStorage.length]).toEqual([0, 0]);
  });

  it('restores a saved session without opening another, resets included', async () => {
    const { fetch, sent } = countingFetch();
    const saved: QuickExchangeSession = {
      sessionId: '6b0a6a55-3f77-4a65-9d43-5a0b0f5a2c11',
      environment: 'SANDBOX',
      suggestedCountry: 'SG',
      defaultTransaction: {},
      termsOfServiceHref: 'https://partners.exchange.example/legal/terms-of-service',
    };
    const { wrapper, queryClient } = providerWrapper({ config: sandboxConfig({ fetch }) });
    const { result } = renderHook(() => useUserSession({ restore: saved }), { wrapper });
    expect(result.current.data).toEqual(saved);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A reset puts the restored session back, and refetching it opens nothing either.
    await act(() => queryClient.resetQueries());
    await waitFor(() => expect(result.current.fetchStatus).toBe('idle'));
    expect(result.current.data).toEqual(saved);
    expect(sent).toEqual([]);
  });

  it('survives invalidation and reset of every key; useRenewSession opens a new session', async () => {
    const { wrapper, queryClient } = providerWrapper();
    const { result } = renderHook(
      () => ({ session: useUserSession(), renewal: useRenewSession() }),
      { wrapper },
    );
    await waitFor(() => expect(result.current.session.data).toBeDefined());
    const first = result.current.session.data?.sessionId;
    await act(() => queryClient.invalidateQueries({ queryKey: quickExchangeKeys.all }));
    expect(result.current.session.data?.sessionId).toBe(first);
    await act(() => queryClient.resetQueries());
    await waitFor(() => expect(result.current.session.data?.sessionId).toBe(first));

    const renewed = await act(() => result.current.renewal.mutateAsync());
    expect(renewed.sessionId).not.toBe(first);
    await waitFor(() => expect(result.current.session.data?.sessionId).toBe(renewed.sessionId));
    expect(result.current.renewal.isSuccess).toBe(true);
  });

  it('fails with a ValidationError on a refused public key, not tried again, and renewing rejects with it', async () => {
    const { fetch, count } = countingFetch();
    const { wrapper } = providerWrapper({
      config: sandboxConfig({ publicApiKey: 'pk_unknown', fetch }),
    });
    const { result } = renderHook(() => useUserSession(), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.error?.name).toBe('ValidationError');
    expect(result.current.data).toBeUndefined();
    expect([result.current.failureCount, count('POST /api/v1/session')]).toEqual([1, 1]);
    const renewal = renderHook(() => useRenewSession(), { wrapper }).result;
    await expect(rejectionInAct(() => renewal.current.mutateAsync())).resolves.toMatchObject({
      name: 'ValidationError',
      status: 422,
    });
  });

  it('takes TanStack options: waits while not enabled, and selects', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(() => useUserSession({}, { enabled: false }), { wrapper });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(result.current.data).toBeUndefined();
    expect(result.current.fetchStatus).toBe('idle');
    const selected = renderHook(
      () => useUserSession({}, { select: (session) => session.environment }),
      { wrapper },
    ).result;
    await waitFor(() => expect(selected.current.data).toBe('SANDBOX'));
  });
});
