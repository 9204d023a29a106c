import type { Intent } from '@exchange-kit/partner-client';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { backend, providerWrapper } from '../test/support.js';
import { orderForIntent, useCreateIntent, useIntent } from './intent.js';

describe('useCreateIntent', () => {
  it('creates an intent through the backend function and caches it under its id', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(
      () => {
        const creation = useCreateIntent(backend().createIntent);
        return { creation, cached: useIntent(creation.intent?.id) };
      },
      { wrapper },
    );
    const intent = await act(() =>
      result.current.creation.createIntent({ currency: 'BTC', quantity: '0.005' }),
    );
    expect(intent).toMatchObject({
      strategy: 'ONE_TO_ONE_ATTEMPTED',
      funding_settlement: null,
      payout_settlement: { method: 'BLOCKCHAIN_TRANSFER', currency: 'BTC', quantity: '0.005' },
      partner_tags: ['example'],
    });
    // No loader was given: the intent comes from the cache the creation filled.
    await waitFor(() => expect(result.current.cached.intent).toEqual(intent));
  });

  it('surfaces a failing backend as an error with its message', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(() => useCreateIntent(backend().createIntent), { wrapper });
    expect(
      await act(() => result.current.createIntent({ currency: 'XYZ', quantity: '1' })),
    ).toBeUndefined();
    await waitFor(() => expect(result.current.errorMessage).toMatch(/currency/i));
  });
});

describe('useIntent', () => {
  it('loads an intent by id through the application loader', async () => {
    const created = await backend().createIntent({ currency: 'ETH', quantity: '0.1' });
    const load = vi.fn(backend().loadIntent);
    const { wrapper } = providerWrapper();
    const { result } = renderHook(() => useIntent(created.id, { load }), { wrapper });
    await waitFor(() => expect(result.current.intent).toEqual(created));
    expect(load).toHaveBeenCalledWith(created.id);
  });

  it('reports an intent the loader cannot find', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(
      () => useIntent('00000000-0000-4000-8000-000000000000', { load: backend().loadIntent }),
      { wrapper },
    );
    await waitFor(() => expect(result.current.errorMessage).toBe('Intent not found'));
    expect(result.current.intent).toBeUndefined();
  });

  it('does nothing without an id', () => {
    const load = vi.fn(backend().loadIntent);
    const { wrapper } = providerWrapper();
    const { result } = renderHook(() => useIntent(undefined, { load }), { wrapper });
    expect(result.current).toMatchObject({ intent: undefined, isLoading: false, error: null });
    expect(load).not.toHaveBeenCalled();
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
});
