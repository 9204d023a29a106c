import type {
  SettlementInstruction,
  Transaction,
  TransactionStatus,
} from '@exchange-kit/partner-client';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type SettlementRequirement,
  type TransactionOrder,
  type TransactionResult,
  useTransaction,
} from './transaction.js';

describe('useTransaction types', () => {
  it('discriminates requirements by parameter type', () => {
    expectTypeOf<SettlementRequirement['type']>().toEqualTypeOf<
      'WALLET_ADDRESS' | 'SIGNED_RAW_TRANSACTION'
    >();
    const requirement = {} as SettlementRequirement;
    if (requirement.type === 'WALLET_ADDRESS') {
      expectTypeOf(requirement).toEqualTypeOf<
        Extract<SettlementRequirement, { type: 'WALLET_ADDRESS' }>
      >();
    }
    expectTypeOf<SettlementRequirement['direction']>().toEqualTypeOf<'FUNDING' | 'PAYOUT'>();
  });

  it('exposes status, instructions and actions that resolve to undefined on failure', () => {
    expectTypeOf(useTransaction).returns.toEqualTypeOf<TransactionResult>();
    expectTypeOf<TransactionResult['status']>().toEqualTypeOf<TransactionStatus | undefined>();
    expectTypeOf<TransactionResult['funding']>().toEqualTypeOf<SettlementInstruction | undefined>();
    expectTypeOf<TransactionResult['create']>().returns.resolves.toEqualTypeOf<
      Transaction | undefined
    >();
    expectTypeOf<TransactionResult['submit']>().parameter(0).toEqualTypeOf<SettlementRequirement>();
    expectTypeOf<TransactionResult['chooseMethod']>()
      .parameter(0)
      .toHaveProperty('method')
      .toEqualTypeOf<
        'BLOCKCHAIN_TRANSFER' | 'BLOCKCHAIN_DELEGATED_BROADCAST' | 'SERVICE_PARTNER_WALLET'
      >();
  });

  it('takes an order without the session and client_ref it supplies itself', () => {
    expectTypeOf<TransactionOrder>().not.toHaveProperty('session_id');
    expectTypeOf<TransactionOrder>().not.toHaveProperty('client_ref');
    expectTypeOf({
      side: 'buy',
      symbol: 'BTC/USDC',
      currency: 'BTC',
      quantity: 0.01,
    } as const).toExtend<TransactionOrder>();
    expectTypeOf({
      side: 'buy',
      symbol: 'BTC/USDC',
      currency: 'BTC',
    } as const).not.toExtend<TransactionOrder>();
  });
});
