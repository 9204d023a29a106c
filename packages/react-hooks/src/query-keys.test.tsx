import { renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { backend, providerWrapper } from '../test/support.js';
import { useIntent } from './intent.js';
import { useQuickExchange } from './provider.js';
import { quickExchangeKeys } from './query-keys.js';
import { useUserSession } from './session.js';
import { useTransaction } from './transaction.js';

describe('quickExchangeKeys', () => {
  it('nests every key under the level above it', () => {
    const id = '1f2e3fdf-e161-4553-8a26-39b49fd43583';
    expect(quickExchangeKeys.transaction(id)).toEqual([...quickExchangeKeys.transactions(), id]);
    expect(quickExchangeKeys.intent(id)).toEqual([...quickExchangeKeys.intents(), id]);
    expect(quickExchangeKeys.session('pk')).toEqual([...quickExchangeKeys.sessions(), 'pk']);
    for (const key of [
      quickExchangeKeys.sessions(),
      quickExchangeKeys.intents(),
      quickExchangeKeys.transactions(),
      quickExchangeKeys.transactionCreation('ref', 'session'),
      quickExchangeKeys.settlementChange('transaction', { value: 'v' }),
      quickExchangeKeys.noTransaction(),
      quickExchangeKeys.noIntent(),
    ]) {
      expect(key.slice(0, quickExchangeKeys.all.length)).toEqual(quickExchangeKeys.all);
    }
  });

  it('invalidating a transaction key shows a change made elsewhere', async () => {
    const { wrapper, queryClient } = providerWrapper();
    const { result } = renderHook(
      () => {
        const { data: session } = useUserSession();
        const { sessions } = useQuickExchange();
        const flow = useTransaction({
          sessionId: session?.sessionId,
          order: { side: 'buy', symbol: 'BTC/EUR', currency: 'EUR', quantity: '100' },
        });
        return { ...flow, sessions };
      },
      { wrapper },
    );
    await waitFor(() =>
      expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED'),
    );
    const transactionId = result.current.transactionId as string;

    // The session's own calls, made outside the hooks, choose the methods: nothing polls a
    // transaction that waits.
    const elsewhere = result.current.sessions.clientFor(result.current.transaction?.session_id);
    for (const direction of ['FUNDING', 'PAYOUT'] as const) {
      await elsewhere.transactions.setMethod({
        transaction_id: transactionId,
        direction,
        method: 'SERVICE_PARTNER_WALLET',
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED');

    await queryClient.invalidateQueries({ queryKey: quickExchangeKeys.transaction(transactionId) });
    await waitFor(() => expect(result.current.transactionStatus).toBe('PENDING'));
    expect(result.current.funding?.method).toBe('SERVICE_PARTNER_WALLET');
  });

  it('invalidating the intents reloads them through the loader', async () => {
    const created = await backend().createIntent({ currency: 'BTC', quantity: '0.003' });
    const load = vi.fn(backend().loadIntent);
    const { wrapper, queryClient } = providerWrapper();
    const { result } = renderHook(() => useIntent(created.id, { load }), { wrapper });
    await waitFor(() => expect(result.current.data?.id).toBe(created.id));
    expect(load).toHaveBeenCalledTimes(1);
    await queryClient.invalidateQueries({ queryKey: quickExchangeKeys.intents() });
    await waitFor(() => expect(load).toHaveBeenCalledTimes(2));
  });
});
