import type { Transaction } from '@exchange-kit/partner-client';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  advanceClock,
  backend,
  clockSandboxConfig,
  consoleErrorsDuring,
  countingFetch,
  finishTransaction,
  providerWrapper,
  rejectionInAct,
  sandboxConfig,
} from '../test/support.js';
import { isExpiredQuote } from './errors.js';
import { orderForIntent } from './intent.js';
import { quickExchangeKeys } from './query-keys.js';
import { useRenewSession, useUserSession } from './session.js';
import { type TransactionOptions, useTransaction } from './transaction.js';

const buyBitcoin = { side: 'buy', symbol: 'BTC/USDC', currency: 'BTC', quantity: '0.01' } as const;
const wallet = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const signed = '0x02f8b10181a28459682f00850b68a0aa0083012e2494a0b86991c6218b36c1d19d4a2e9eb0ce';
const intentToTrade = 'POST /api/v1/transaction/intent_to_trade';

function useFlow(options: Omit<TransactionOptions, 'sessionId'>) {
  const session = useUserSession();
  const sessionId = session.data?.sessionId;
  return { ...useTransaction({ ...options, sessionId }), sessionId };
}

/** A created transaction paid on chain both ways, left waiting for the payout wallet. */
async function toTheWallet(result: { current: ReturnType<typeof useFlow> }): Promise<void> {
  await waitFor(() => expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED'));
  for (const direction of ['FUNDING', 'PAYOUT'] as const) {
    await act(() =>
      result.current.chooseMethod.mutateAsync({ direction, method: 'BLOCKCHAIN_TRANSFER' }),
    );
  }
  await waitFor(() => expect(result.current.requirements).toHaveLength(1));
}

afterEach(() => {
  vi.useRealTimers();
});

describe('useTransaction', () => {
  it('drives a transaction without an intent from method to parameters to PENDING, signed', async () => {
    const { fetch, count, authorizations } = countingFetch();
    const { wrapper } = providerWrapper({ config: sandboxConfig({ fetch }) });
    const { result } = renderHook(() => useFlow({}), { wrapper });
    await waitFor(() => expect(result.current.sessionId).toBeDefined());
    const created = await act(() => result.current.create.mutateAsync(buyBitcoin));
    expect(created.status).toBe('SETTLEMENT_METHOD_REQUIRED');
    await waitFor(() =>
      expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED'),
    );
    expect(result.current.query.status).toBe('success');
    expect(result.current.methodsRequired).toEqual(['FUNDING', 'PAYOUT']);
    expect(result.current.requirements).toEqual([]);

    await act(() =>
      result.current.chooseMethod.mutateAsync({
        direction: 'FUNDING',
        method: 'BLOCKCHAIN_DELEGATED_BROADCAST',
      }),
    );
    await waitFor(() => expect(result.current.methodsRequired).toEqual(['PAYOUT']));
    await act(() =>
      result.current.chooseMethod.mutateAsync({
        direction: 'PAYOUT',
        method: 'BLOCKCHAIN_TRANSFER',
      }),
    );
    expect(result.current.chooseMethod.variables).toEqual({
      direction: 'PAYOUT',
      method: 'BLOCKCHAIN_TRANSFER',
    });
    await waitFor(() =>
      expect(result.current.transactionStatus).toBe('SETTLEMENT_PARAMETERS_REQUIRED'),
    );
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
    expect(result.current.expiresAt).toBeGreaterThan(Date.now());
    expect([result.current.expired, result.current.canRequote]).toEqual([false, false]);

    const [transactionKey, accountKey] = result.current.requirements;
    if (!transactionKey || !accountKey) throw new Error('requirements missing');
    await act(() => result.current.submit.mutateAsync({ requirement: accountKey, value: wallet }));
    await waitFor(() =>
      expect(result.current.requirements.map((r) => r.name)).toEqual(['transaction_key']),
    );
    await act(() =>
      result.current.submit.mutateAsync({ requirement: transactionKey, value: signed }),
    );
    await waitFor(() => expect(result.current.transactionStatus).toBe('PENDING'));
    expect(result.current.requirements).toEqual([]);
    expect(result.current.payout?.received_input).toEqual({
      account_key: { type: 'WALLET_ADDRESS', value: wallet },
    });
    expect(result.current.isTerminal).toBe(false);
    expect(result.current.error).toBeNull();
    // This sandbox refuses session calls without the session JWT: every one carried it.
    expect(count(intentToTrade)).toBe(1);
    expect(authorizations('POST /api/v1/session')).toEqual([null]);
    for (const call of [
      intentToTrade,
      'POST /api/v1/settlement/method',
      'POST /api/v1/settlement/parameters',
    ]) {
      expect(authorizations(call).every((value) => value?.startsWith('Bearer '))).toBe(true);
    }
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
    await waitFor(() =>
      expect(result.current.transactionStatus).toBe('SETTLEMENT_PARAMETERS_REQUIRED'),
    );
    expect(count(intentToTrade)).toBe(1);
    expect(result.current.requirements).toMatchObject([
      { type: 'WALLET_ADDRESS', name: 'account_key', direction: 'PAYOUT' },
    ]);
    const [accountKey] = result.current.requirements;
    if (!accountKey) throw new Error('requirement missing');
    act(() => result.current.submit.mutate({ requirement: accountKey, value: wallet }));
    await waitFor(() => expect(result.current.transactionStatus).toBe('PENDING'));
    expect(result.current.funding?.status).toBe('WAITING_USER');

    const transactionId = result.current.transactionId as string;
    const polled = count(`GET /api/v1/transaction/status/${transactionId}`);
    await waitFor(() =>
      expect(count(`GET /api/v1/transaction/status/${transactionId}`)).toBeGreaterThan(polled + 1),
    );
    await finishTransaction(transactionId, 'FILLED');
    await waitFor(() => expect(result.current.transactionStatus).toBe('FILLED'));
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

    const again = renderHook(() => useFlow({ clientRef: 'checkout-remount', order: buyBitcoin }), {
      wrapper,
    });
    await waitFor(() => expect(again.result.current.transactionId).toBe(id));
  });

  it('follows an existing transaction by id, signed by the session that made it', async () => {
    const { wrapper } = providerWrapper();
    const creator = renderHook(() => useFlow({ order: buyBitcoin }), { wrapper });
    await waitFor(() => expect(creator.result.current.transactionId).toBeDefined());
    const transactionId = creator.result.current.transactionId as string;

    const { result } = renderHook(() => useTransaction({ sessionId: undefined, transactionId }), {
      wrapper,
    });
    await waitFor(() =>
      expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED'),
    );
    expect((result.current.transaction as Transaction).transaction_id).toBe(transactionId);

    // After a reload the secret is gone, and this sandbox wants the session's JWT.
    const { wrapper: reloaded } = providerWrapper();
    const stranger = renderHook(() => useTransaction({ sessionId: undefined, transactionId }), {
      wrapper: reloaded,
    });
    await waitFor(() => expect(stranger.result.current.error?.name).toBe('AuthenticationError'));
    expect(stranger.result.current.transaction).toBeUndefined();
  });

  it('rejects mutateAsync with typed errors, keeps them with readable messages, and recovers', async () => {
    // React reports an act left open on console.error, for every update after it.
    const logged = await consoleErrorsDuring(async () => {
      const { wrapper } = providerWrapper();
      const { result } = renderHook(() => useFlow({}), { wrapper });
      await waitFor(() => expect(result.current.sessionId).toBeDefined());
      await expect(
        rejectionInAct(() =>
          result.current.create.mutateAsync({ ...buyBitcoin, symbol: 'BTC/XYZ' }),
        ),
      ).resolves.toMatchObject({ name: 'ValidationError', status: 422 });
      await waitFor(() => expect(result.current.error?.name).toBe('ValidationError'));
      expect(result.current.errorMessage).toMatch(/symbol|XYZ/);
      expect(result.current.transactionId).toBeUndefined();

      act(() =>
        result.current.chooseMethod.mutate({ direction: 'FUNDING', method: 'BLOCKCHAIN_TRANSFER' }),
      );
      await waitFor(() => expect(result.current.errorMessage).toBe('There is no transaction yet.'));
      expect(result.current.error?.name).toBe('QuickExchangeFlowError');

      act(() => result.current.create.reset());
      await act(() => result.current.create.mutateAsync(buyBitcoin));
      await waitFor(() =>
        expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED'),
      );
    });
    expect(logged).toEqual([]);
  });

  it('refuses a payout method that cannot pay out, keeping the transaction', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(() => useFlow({ order: buyBitcoin }), { wrapper });
    await waitFor(() =>
      expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED'),
    );
    act(() =>
      result.current.chooseMethod.mutate({
        direction: 'PAYOUT',
        method: 'BLOCKCHAIN_DELEGATED_BROADCAST',
      }),
    );
    await waitFor(() => expect(result.current.chooseMethod.status).toBe('error'));
    expect(result.current.error?.name).toBe('ValidationError');
    expect(result.current.errorMessage).toMatch(/payout/);
    expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED');
  });
});

describe('a client_ref in another session', () => {
  it('a kept clientRef after a reload is refused as taken, with a sentence for the user and a way on', async () => {
    const clientRef = `checkout-${Date.now()}`;
    const before = renderHook(() => useFlow({ clientRef, order: buyBitcoin }), {
      wrapper: providerWrapper().wrapper,
    });
    await waitFor(() => expect(before.result.current.transactionId).toBeDefined());

    // A reload: a new provider opens a new session, whose intent_to_trade names the same ref.
    const { fetch, count } = countingFetch();
    const { wrapper } = providerWrapper({ config: sandboxConfig({ fetch }) });
    const { result, rerender } = renderHook(
      (ref: string) => useFlow({ clientRef: ref, order: buyBitcoin }),
      { wrapper, initialProps: clientRef },
    );
    await waitFor(() => expect(result.current.clientRefTaken).toBe(true));
    expect(result.current.sessionId).not.toBe(before.result.current.sessionId);
    expect(result.current.transaction).toBeUndefined();
    expect(result.current.error?.name).toBe('ValidationError');
    expect(result.current.errorMessage).toBe(
      'This purchase was already started elsewhere, for example before the page was reloaded. Start a new one to continue.',
    );
    expect(count(intentToTrade)).toBe(1);

    // The caller keeps its own refs: a new one makes the new session's transaction.
    rerender(`${clientRef}-again`);
    await waitFor(() =>
      expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED'),
    );
    expect(result.current.clientRefTaken).toBe(false);
    expect(result.current.error).toBeNull();
    expect(result.current.transaction?.session_id).toBe(result.current.sessionId);
  });

  it('startOver leaves the transaction behind and creates anew under a fresh generated client_ref', async () => {
    const { fetch, count } = countingFetch();
    const { wrapper } = providerWrapper({ config: sandboxConfig({ fetch }), strict: true });
    const { result } = renderHook(() => useFlow({ order: buyBitcoin }), { wrapper });
    await waitFor(() => expect(result.current.transactionId).toBeDefined());
    const { clientRef, transactionId } = result.current;

    act(() => result.current.startOver());
    await waitFor(() => expect(result.current.transactionId).toBeDefined());
    expect(result.current.transactionId).not.toBe(transactionId);
    expect(result.current.clientRef).not.toBe(clientRef);
    expect(result.current.transaction?.client_ref).toBe(result.current.clientRef);
    expect(count(intentToTrade)).toBe(2);
  });
});

describe('double clicks', () => {
  it('choosing the same method twice at once sends it once', async () => {
    const { fetch, count } = countingFetch();
    const { wrapper } = providerWrapper({ config: sandboxConfig({ fetch }) });
    const { result } = renderHook(() => useFlow({ order: buyBitcoin }), { wrapper });
    await waitFor(() =>
      expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED'),
    );
    const choice = { direction: 'FUNDING', method: 'BLOCKCHAIN_TRANSFER' } as const;
    act(() => {
      result.current.chooseMethod.mutate(choice);
      result.current.chooseMethod.mutate({ ...choice });
    });
    await waitFor(() => expect(result.current.methodsRequired).toEqual(['PAYOUT']));
    await waitFor(() => expect(result.current.isWorking).toBe(false));
    expect(count('POST /api/v1/settlement/method')).toBe(1);
    expect(result.current.error).toBeNull();
  });

  it('submitting the same value twice at once sends it once and shows no error beside PENDING', async () => {
    const { fetch, count } = countingFetch();
    const { wrapper } = providerWrapper({ config: sandboxConfig({ fetch }) });
    const { result } = renderHook(() => useFlow({ order: buyBitcoin }), { wrapper });
    await toTheWallet(result);
    const [accountKey] = result.current.requirements;
    if (!accountKey) throw new Error('requirement missing');
    const parameters = 'POST /api/v1/settlement/parameters';
    const first = count(parameters);
    const clicks = await act(() =>
      Promise.allSettled([
        result.current.submit.mutateAsync({ requirement: accountKey, value: wallet }),
        result.current.submit.mutateAsync({ requirement: { ...accountKey }, value: wallet }),
      ]),
    );
    expect(clicks.map((click) => click.status)).toEqual(['fulfilled', 'fulfilled']);
    await waitFor(() => expect(result.current.transactionStatus).toBe('PENDING'));
    expect(count(parameters) - first).toBe(1);
    expect(result.current.error).toBeNull();

    // Once the first has ended, the same value is sent again (and refused: it is PENDING now).
    await expect(
      rejectionInAct(() =>
        result.current.submit.mutateAsync({ requirement: accountKey, value: wallet }),
      ),
    ).resolves.toMatchObject({ name: 'ValidationError' });
    expect(count(parameters) - first).toBe(2);
  });
});

describe('useTransaction and the cache', () => {
  it('leaves no idle transaction entry behind, and none under transactions() while idle', async () => {
    const { wrapper, queryClient } = providerWrapper();
    const { result, unmount } = renderHook(() => useTransaction({ sessionId: undefined }), {
      wrapper,
    });
    expect(result.current.transactionId).toBeUndefined();
    const cache = queryClient.getQueryCache();
    expect(cache.findAll({ queryKey: quickExchangeKeys.transactions() })).toEqual([]);
    expect(cache.find({ queryKey: quickExchangeKeys.transaction('') })).toBeUndefined();
    unmount();
    await waitFor(() => expect(cache.getAll()).toEqual([]));
  });

  it('resetQueries() keeps the one session and reads the same transaction again', async () => {
    const { fetch, count } = countingFetch();
    const { wrapper, queryClient } = providerWrapper({ config: sandboxConfig({ fetch }) });
    const { result } = renderHook(() => useFlow({ order: buyBitcoin }), { wrapper });
    await waitFor(() =>
      expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED'),
    );
    const { sessionId, transactionId } = result.current;
    const reads = count(`GET /api/v1/transaction/status/${transactionId}`);

    await act(() => queryClient.resetQueries());
    await waitFor(() =>
      expect(result.current.transactionStatus).toBe('SETTLEMENT_METHOD_REQUIRED'),
    );
    expect(result.current.sessionId).toBe(sessionId);
    expect(result.current.transactionId).toBe(transactionId);
    expect(count(`GET /api/v1/transaction/status/${transactionId}`)).toBeGreaterThan(reads);
    expect(count('POST /api/v1/session')).toBe(1);
    expect(count(intentToTrade)).toBe(1);
  });

  it('a renewed session leaves the old transaction behind and makes its own', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(
      () => ({ flow: useFlow({ order: buyBitcoin }), renewal: useRenewSession() }),
      { wrapper },
    );
    await waitFor(() => expect(result.current.flow.transactionId).toBeDefined());
    const old = result.current.flow.transactionId;
    const renewed = await act(() => result.current.renewal.mutateAsync());
    await waitFor(() => expect(result.current.flow.sessionId).toBe(renewed.sessionId));
    expect(result.current.flow.transactionId).not.toBe(old);
    await waitFor(() => expect(result.current.flow.transactionId).toBeDefined());
    expect(result.current.flow.transactionId).not.toBe(old);
    expect(result.current.flow.transaction?.session_id).toBe(renewed.sessionId);
  });
});

describe('quote expiry', () => {
  it('shows the expiry, refuses settling on an expired quote, and requotes to PENDING', async () => {
    const { wrapper } = providerWrapper({ config: clockSandboxConfig() });
    const { result } = renderHook(() => useFlow({ order: buyBitcoin }), { wrapper });
    await toTheWallet(result);
    const firstExpiry = result.current.expiresAt as number;
    expect(result.current.expired).toBe(false);

    // The user takes 25 s to type the address: on the server's clock and on the page's.
    await advanceClock(25);
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 25_000);
    await waitFor(() => expect(result.current.expired).toBe(true));
    expect(result.current.canRequote).toBe(true);

    const [accountKey] = result.current.requirements;
    if (!accountKey) throw new Error('requirement missing');
    let refusal: unknown;
    await act(async () => {
      await result.current.submit
        .mutateAsync({ requirement: accountKey, value: wallet })
        .catch((error: unknown) => {
          refusal = error;
        });
    });
    expect(isExpiredQuote(refusal)).toBe(true);
    await waitFor(() =>
      expect(result.current.errorMessage).toBe('The price expired. Get a new price to continue.'),
    );
    expect(result.current.transactionStatus).toBe('SETTLEMENT_PARAMETERS_REQUIRED');

    const requoted = await act(() => result.current.requote.mutateAsync());
    expect(requoted.payout_settlement?.expires?.unix_ms).toBeGreaterThan(firstExpiry);
    await waitFor(() => expect(result.current.expired).toBe(false));
    expect(result.current.error).toBeNull();
    const [again] = result.current.requirements;
    if (!again) throw new Error('requirement missing');
    await act(() => result.current.submit.mutateAsync({ requirement: again, value: wallet }));
    await waitFor(() => expect(result.current.transactionStatus).toBe('PENDING'));
  });
});
