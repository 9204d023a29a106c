import { renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { providerWrapper, sandboxConfig } from '../test/support.js';
import { quickExchangeKeys } from './query-keys.js';
import { type QuickExchangeSession, useUserSession } from './session.js';

describe('useUserSession', () => {
  it('opens a session against the sandbox and keeps no secret', async () => {
    const { wrapper, queryClient } = providerWrapper();
    const { result } = renderHook(() => useUserSession({ userLocale: 'en-JP' }), { wrapper });
    await waitFor(() => expect(result.current.session).toBeDefined());
    const session = result.current.session as QuickExchangeSession;
    expect(session).toEqual({
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      environment: 'SANDBOX',
      suggestedCountry: 'JP',
      defaultTransaction: {
        funding_settlement: { currency: 'USDC', quantity: '1000' },
        payout_settlement: { currency: 'BTC' },
      },
      termsOfServiceHref: expect.stringMatching(/^https:\/\/.+terms-of-service$/),
    });
    expect(
      JSON.stringify(
        queryClient
          .getQueryCache()
          .getAll()
          .map((q) => q.state.data),
      ),
    ).not.toMatch(/secret/);
  });

  it('restores a saved session without opening another', async () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      calls.push(String(input instanceof Request ? input.url : input));
      return globalThis.fetch(input, init);
    };
    const saved: QuickExchangeSession = {
      sessionId: '6b0a6a55-3f77-4a65-9d43-5a0b0f5a2c11',
      environment: 'SANDBOX',
      suggestedCountry: 'SG',
      defaultTransaction: {},
      termsOfServiceHref: 'https://partners.exchange.example/legal/terms-of-service',
    };
    const { wrapper } = providerWrapper({ config: sandboxConfig({ fetch }) });
    const { result } = renderHook(() => useUserSession({ restore: saved }), { wrapper });
    expect(result.current.session).toEqual(saved);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toEqual([]);
  });

  it('survives invalidation of every key, and renew() opens a new session', async () => {
    const { wrapper, queryClient } = providerWrapper();
    const { result } = renderHook(() => useUserSession(), { wrapper });
    await waitFor(() => expect(result.current.session).toBeDefined());
    const first = result.current.session?.sessionId;
    await queryClient.invalidateQueries({ queryKey: quickExchangeKeys.all });
    expect(result.current.session?.sessionId).toBe(first);

    const renewed = await result.current.renew();
    expect(renewed?.sessionId).not.toBe(first);
    await waitFor(() => expect(result.current.session?.sessionId).toBe(renewed?.sessionId));
  });

  it('surfaces a refused public key as a ValidationError with a readable message', async () => {
    const { wrapper } = providerWrapper({ config: sandboxConfig({ publicApiKey: 'pk_unknown' }) });
    const { result } = renderHook(() => useUserSession(), { wrapper });
    await waitFor(() => expect(result.current.error).not.toBeNull());
    expect(result.current.error?.name).toBe('ValidationError');
    // The sandbox names the field; a message of its own, when it sends one, is shown instead.
    expect(result.current.errorMessage).toMatch(/public.api.key/i);
    expect(result.current.session).toBeUndefined();
  });

  it('waits while not enabled', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(() => useUserSession({ enabled: false }), { wrapper });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(result.current.session).toBeUndefined();
    expect(result.current.isLoading).toBe(false);
  });
});
