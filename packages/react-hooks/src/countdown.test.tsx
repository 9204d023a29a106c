import type { SettlementInstruction } from '@exchange-kit/partner-client';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { providerWrapper } from '../test/support.js';
import { useSettlementCountdown } from './countdown.js';
import { useUserSession } from './session.js';
import { useTransaction } from './transaction.js';

const instruction = (expiresAt: number | undefined): SettlementInstruction => ({
  settlement_instruction_id: 'd6da688f-68dd-45b4-b86e-f76d360102a6',
  transaction_id: '20155a87-2047-436a-8cad-5aca8e390763',
  currency: 'USDC',
  direction: 'FUNDING',
  method: 'BLOCKCHAIN_TRANSFER',
  quantity: '675',
  status: 'WAITING_USER',
  ...(expiresAt === undefined
    ? {}
    : {
        expires: {
          unix_ms: expiresAt,
          iso8601: new Date(expiresAt).toISOString(),
          ttl_ms: 20_000,
        },
      }),
  setup_parameters: {},
  required_input_parameters: {},
  received_input: {},
});

afterEach(() => {
  vi.useRealTimers();
});

describe('useSettlementCountdown', () => {
  it('counts down a real instruction of the sandbox', async () => {
    const { wrapper } = providerWrapper();
    const { result } = renderHook(
      () => {
        const { data: session } = useUserSession();
        const transaction = useTransaction({
          sessionId: session?.sessionId,
          order: { side: 'buy', symbol: 'ETH/USDC', currency: 'ETH', quantity: '0.1' },
        });
        return { transaction, countdown: useSettlementCountdown(transaction.funding) };
      },
      { wrapper },
    );
    await waitFor(() => expect(result.current.transaction.transactionStatus).toBeDefined());
    await act(() =>
      result.current.transaction.chooseMethod.mutateAsync({
        direction: 'FUNDING',
        method: 'BLOCKCHAIN_TRANSFER',
      }),
    );
    await waitFor(() => expect(result.current.countdown.msLeft).toBeDefined());
    const first = result.current.countdown.msLeft as number;
    expect(first).toBeGreaterThan(15_000);
    expect(first).toBeLessThanOrEqual(20_000);
    expect(result.current.countdown.expired).toBe(false);
    await waitFor(
      () => expect(result.current.countdown.secondsLeft).toBeLessThan(Math.ceil(first / 1_000)),
      {
        timeout: 2_000,
      },
    );
  });

  it('updates each second and flags the expiry, then stops', () => {
    vi.useFakeTimers({ now: 1_716_000_000_000 });
    const { result } = renderHook(() =>
      useSettlementCountdown(instruction(1_716_000_000_000 + 2_500)),
    );
    expect(result.current).toEqual({ msLeft: 2_500, secondsLeft: 3, expired: false });
    act(() => vi.advanceTimersByTime(500));
    expect(result.current).toEqual({ msLeft: 2_000, secondsLeft: 2, expired: false });
    act(() => vi.advanceTimersByTime(1_000));
    expect(result.current).toEqual({ msLeft: 1_000, secondsLeft: 1, expired: false });
    act(() => vi.advanceTimersByTime(1_000));
    expect(result.current).toEqual({ msLeft: 0, secondsLeft: 0, expired: true });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reports nothing for an instruction without expiry', () => {
    const { result } = renderHook(() => useSettlementCountdown(instruction(undefined)));
    expect(result.current).toEqual({ msLeft: undefined, secondsLeft: undefined, expired: false });
    const none = renderHook(() => useSettlementCountdown(undefined));
    expect(none.result.current.expired).toBe(false);
  });
});
