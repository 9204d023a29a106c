import type { Transaction } from '@exchange-kit/partner-client';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  backend,
  countingFetch,
  finishTransaction,
  providerWrapper,
  sandboxConfig,
} from '../test/support.js';
import { orderForIntent } from './intent.js';
import { useUserSession } from './session.js';
import { type TransactionOptions, useTransaction } from './transaction.js';

const buyBitcoin = { side: 'buy', symbol: 'BTC/USDC', currency: 'BTC', quantity: '0.01' } as const;
const wallet = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const signed = '0x02f8b10181a28459682f00850b68a0aa0083012e2494a0b86991c6218b36c1d19d4a2e9eb0ce';
const intentToTrade = 'POST /api/v1/transaction/intent_to_trade';

function useFlow(options: Omit<TransactionOptions, 'sessionId'>) {
  const { session } = useUserSession();
  const sessionId = session?.sessionId;
  return { ...useTransaction({ ...options, sessionId }), sessionId };
}

describe('useTransaction', () => {
  it('drives a transaction without an intent from method to parameters to PENDING', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(() => useFlow({}), { wrapper });
    await waitFor(() => expect(result.current.sessionId).toBeDefined());
    expect(await act(() => result.current.create(buyBitcoin))).toBeDefined();
    await waitFor(() => expect(result.current.status).toBe('SETTLEMENT_METHOD_REQUIRED'));
    expect(result.current.methodsRequired).toEqual(['FUNDING', 'PAYOUT']);
    expect(result.current.requirements).toEqual([]);

    await act(() =>
      result.current.chooseMethod({
        direction: 'FUNDING',
        method: 'BLOCKCHAIN_DELEGATED_BROADCAST',
      }),
    );
    await waitFor(() => expect(result.current.methodsRequired).toEqual(['PAYOUT']));
    await act(() =>
      result.current.chooseMethod({ direction: 'PAYOUT', method: 'BLOCKCHAIN_TRANSFER' }),
    );
    await waitFor(() => expect(result.current.status).toBe('SETTLEMENT_PARAMETERS_REQUIRED'));
    expect(result.current.methodsRequired).toEqual([]);
    expect(result.current.requirements).toEqual([
      {
        type: 'SIGNED_RAW_TRANSACTION',
        name: 'transaction_key',
        direction: 'FUNDING',
        currency: 'USDC',
        settlementInstructionId: result.current.funding?.settlement_instruction_id,
      },
      {
        type: 'WALLET_ADDRESS',
        name: 'account_key',
        direction: 'PAYOUT',
        currency: 'BTC',
        settlementInstructionId: result.current.payout?.settlement_instruction_id,
      },
    ]);

    const [transactionKey, accountKey] = result.current.requirements;
    if (!transactionKey || !accountKey) throw new Error('requirements missing');
    await act(() => result.current.submit(accountKey, wallet));
    await waitFor(() =>
      expect(result.current.requirements.map((r) => r.name)).toEqual(['transaction_key']),
    );
    await act(() => result.current.submit(transactionKey, signed));
    await waitFor(() => expect(result.current.status).toBe('PENDING'));
    expect(result.current.requirements).toEqual([]);
    expect(result.current.payout?.received_input).toEqual({
      account_key: { type: 'WALLET_ADDRESS', value: wallet },
    });
    expect(result.current.isTerminal).toBe(false);
    expect(result.current.error).toBeNull();
  });

  it('creates from an intent exactly once under StrictMode, and polls until a terminal state', async () => {
    const intent = await backend().createIntent({ currency: 'BTC', quantity: '0.002' });
    const { fetch, count } = countingFetch();
    const { wrapper } = providerWrapper({ config: sandboxConfig({ fetch }), strict: true });
    const order = {
      ...orderForIntent(intent, 'USDC'),
      funding_settlement: { method: 'BLOCKCHAIN_TRANSFER' as const },
    };
    const { result } = renderHook(() => useFlow({ order, pollIntervalMs: 100 }), { wrapper });

    // The intent fixes the payout method, so the payout wallet is what is still required.
    await waitFor(() => expect(result.current.status).toBe('SETTLEMENT_PARAMETERS_REQUIRED'));
    expect(count(intentToTrade)).toBe(1);
    expect(result.current.requirements).toMatchObject([
      { type: 'WALLET_ADDRESS', name: 'account_key', direction: 'PAYOUT' },
    ]);
    const [accountKey] = result.current.requirements;
    if (!accountKey) throw new Error('requirement missing');
    await act(() => result.current.submit(accountKey, wallet));
    await waitFor(() => expect(result.current.status).toBe('PENDING'));
    expect(result.current.funding?.status).toBe('WAITING_USER');

    const transactionId = result.current.transactionId as string;
    const polled = count(`GET /api/v1/transaction/status/${transactionId}`);
    await waitFor(() =>
      expect(count(`GET /api/v1/transaction/status/${transactionId}`)).toBeGreaterThan(polled + 1),
    );
    await finishTransaction(transactionId, 'FILLED');
    await waitFor(() => expect(result.current.status).toBe('FILLED'));
    expect(result.current.isTerminal).toBe(true);
    const atEnd = count(`GET /api/v1/transaction/status/${transactionId}`);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(count(`GET /api/v1/transaction/status/${transactionId}`)).toBe(atEnd);
    expect(count(intentToTrade)).toBe(1);
  });

  it('finds the same transaction again when remounted with the same client_ref', async () => {
    const { wrapper } = providerWrapper();
    const first = renderHook(() => useFlow({ clientRef: 'checkout-remount', order: buyBitcoin }), {
      wrapper,
    });
    await waitFor(() => expect(first.result.current.transactionId).toBeDefined());
    const id = first.result.current.transactionId;
    first.unmount();

    // A new cache, as after a reload: only the server's client_ref check can match it up.
    const { wrapper: reloaded } = providerWrapper();
    const sessionOf = renderHook(() => useUserSession(), { wrapper }).result;
    await waitFor(() => expect(sessionOf.current.session).toBeDefined());
    const again = renderHook(
      () =>
        useTransaction({
          sessionId: sessionOf.current.session?.sessionId,
          clientRef: 'checkout-remount',
          order: buyBitcoin,
        }),
      { wrapper: reloaded },
    );
    await waitFor(() => expect(again.result.current.transactionId).toBe(id));
  });

  it('follows an existing transaction by id', async () => {
    const { wrapper } = providerWrapper();
    const creator = renderHook(() => useFlow({ order: buyBitcoin }), { wrapper });
    await waitFor(() => expect(creator.result.current.transactionId).toBeDefined());
    const transactionId = creator.result.current.transactionId as string;

    const { wrapper: elsewhere } = providerWrapper();
    const { result } = renderHook(() => useTransaction({ sessionId: undefined, transactionId }), {
      wrapper: elsewhere,
    });
    await waitFor(() => expect(result.current.status).toBe('SETTLEMENT_METHOD_REQUIRED'));
    expect((result.current.transaction as Transaction).transaction_id).toBe(transactionId);
  });

  it('surfaces refusals as typed errors with readable messages, and recovers', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(() => useFlow({}), { wrapper });
    await waitFor(() => expect(result.current.sessionId).toBeDefined());
    expect(await act(() => result.current.create({ ...buyBitcoin, symbol: 'BTC/XYZ' }))).toBe(
      undefined,
    );
    await waitFor(() => expect(result.current.error?.name).toBe('ValidationError'));
    expect(result.current.errorMessage).toMatch(/symbol|XYZ/);
    expect(result.current.transactionId).toBeUndefined();

    const tooEarly = await act(() =>
      result.current.chooseMethod({ direction: 'FUNDING', method: 'BLOCKCHAIN_TRANSFER' }),
    );
    expect(tooEarly).toBeUndefined();
    await waitFor(() => expect(result.current.errorMessage).toBe('There is no transaction yet.'));

    await act(() => result.current.create(buyBitcoin));
    await waitFor(() => expect(result.current.status).toBe('SETTLEMENT_METHOD_REQUIRED'));
    expect(result.current.error).toBeNull();
  });

  it('refuses a payout method that cannot pay out, keeping the transaction', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(() => useFlow({ order: buyBitcoin }), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('SETTLEMENT_METHOD_REQUIRED'));
    await act(() =>
      result.current.chooseMethod({
        direction: 'PAYOUT',
        method: 'BLOCKCHAIN_DELEGATED_BROADCAST',
      }),
    );
    await waitFor(() => expect(result.current.error?.name).toBe('ValidationError'));
    expect(result.current.errorMessage).toMatch(/payout/);
    expect(result.current.status).toBe('SETTLEMENT_METHOD_REQUIRED');
  });
});
