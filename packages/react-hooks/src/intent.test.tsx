import type { Intent } from '@exchange-kit/partner-client';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { backend, consoleErrorsDuring, providerWrapper, rejectionInAct } from '../test/support.js';
import { orderForIntent, useCreateIntent, useIntent } from './intent.js';
import { quickExchangeKeys } from './query-keys.js';

describe('useCreateIntent', () => {
  it('creates an intent through the backend function and caches it under its id', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(
      () => {
        const creation = useCreateIntent(backend().createIntent);
        return { creation, cached: useIntent(creation.data?.id) };
      },
      { wrapper },
    );
    const intent = await act(() =>
      result.current.creation.mutateAsync({ currency: 'BTC', quantity: '0.005' }),
    );
    expect(intent).toMatchObject({
      strategy: 'ONE_TO_ONE_ATTEMPTED',
      funding_settlement: null,
      payout_settlement: { method: 'BLOCKCHAIN_TRANSFER', currency: 'BTC', quantity: '0.005' },
      partner_tags: ['example'],
    });
    // No loader was given: the intent comes from the cache the creation filled.
    await waitFor(() => expect(result.current.cached.data).toEqual(intent));
    expect(result.current.creation.variables).toEqual({ currency: 'BTC', quantity: '0.005' });
  });

  it('rejects mutateAsync with the backend error, keeps it in error, and resets', async () => {
    // React reports an act left open on console.error, for every update after it.
    const logged = await consoleErrorsDuring(async () => {
      const { wrapper } = providerWrapper();
      const { result } = renderHook(() => useCreateIntent(backend().createIntent), { wrapper });
      await expect(
        rejectionInAct(() => result.current.mutateAsync({ currency: 'XYZ', quantity: '1' })),
      ).resolves.toMatchObject({ message: expect.stringMatching(/currency/i) });
      await waitFor(() => expect(result.current.error?.message).toMatch(/currency/i));
      act(() => result.current.reset());
      await waitFor(() => expect(result.current.status).toBe('idle'));
    });
    expect(logged).toEqual([]);
  });
});

describe('useIntent', () => {
  it('loads an intent by id through the application loader', async () => {
    const created = await backend().createIntent({ currency: 'ETH', quantity: '0.1' });
    const load = vi.fn(backend().loadIntent);
    const { wrapper } = providerWrapper();
    const { result } = renderHook(() => useIntent(created.id, { load }), { wrapper });
    await waitFor(() => expect(result.current.data).toEqual(created));
    // The query's signal goes to the loader, which hands it to its fetch.
    expect(load).toHaveBeenCalledWith(created.id, { signal: expect.any(AbortSignal) });
  });

  it('reports an intent the loader cannot find', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(
      () => useIntent('00000000-0000-4000-8000-000000000000', { load: backend().loadIntent }),
      { wrapper },
    );
    await waitFor(() => expect(result.current.error?.message).toBe('Intent not found'));
    expect(result.current.data).toBeUndefined();
  });

  it('does nothing without an id, and leaves nothing in the cache once unmounted', async () => {
    const load = vi.fn(backend().loadIntent);
    const { wrapper, queryClient } = providerWrapper();
    const { result, unmount } = renderHook(() => useIntent(undefined, { load }), { wrapper });
    expect(result.current).toMatchObject({ data: undefined, isLoading: false, error: null });
    expect(load).not.toHaveBeenCalled();
    expect(queryClient.getQueryCache().findAll({ queryKey: quickExchangeKeys.intents() })).toEqual(
      [],
    );
    unmount();
    await waitFor(() => expect(queryClient.getQueryCache().getAll()).toEqual([]));
  });
});

describe('orderForIntent', () => {
  const intent: Intent = {
    id: '2767090b-f955-4a9c-819f-f955ba4137ed',
    created_at: '1716000000123',
    expires_at: null,
    strategy: 'ONE_TO_ONE_ATTEMPTED',
    funding_settlement: null,
    payout_settlement: { method: 'BLOCKCHAIN_TRANSFER', currency: 'BTC', quantity: '0.01' },
  };

  it('buys the fixed payout with the funding currency the user chose', () => {
    expect(orderForIntent(intent, 'USDC')).toEqual({
      intent_id: intent.id,
      side: 'buy',
      symbol: 'BTC/USDC',
      currency: 'BTC',
      quantity: '0.01',
    });
  });

  it('uses the intent funding side when it fixes one', () => {
    const fundedInEur: Intent = {
      ...intent,
      funding_settlement: { method: 'BLOCKCHAIN_TRANSFER', currency: 'ETH', quantity: '0.5' },
      payout_settlement: { method: 'BLOCKCHAIN_TRANSFER', currency: 'BTC' },
    };
    expect(orderForIntent(fundedInEur)).toMatchObject({
      symbol: 'BTC/ETH',
      currency: 'ETH',
      quantity: '0.5',
    });
  });

  it('asks for a funding currency when the intent leaves it to the user', () => {
    expect(() => orderForIntent(intent)).toThrow(/choose the funding currency/);
  });

  it('refuses to fund a payout in its own currency, naming both', () => {
    const usdcPayout: Intent = {
      ...intent,
      payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '49.90' },
    };
    expect(() => orderForIntent(usdcPayout, 'USDC')).toThrow(
      new TypeError(
        "The funding currency USDC is the intent's payout currency USDC: fund it in another one",
      ),
    );
    const fundedInUsdc: Intent = {
      ...usdcPayout,
      funding_settlement: { method: 'BLOCKCHAIN_TRANSFER', currency: 'USDC' },
    };
    expect(() => orderForIntent(fundedInUsdc)).toThrow(TypeError);
    expect(orderForIntent(usdcPayout, 'BTC')).toMatchObject({ symbol: 'USDC/BTC' });
  });
});
