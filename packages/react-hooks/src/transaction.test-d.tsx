import type {
  SettlementInstruction,
  Transaction,
  TransactionStatus,
} from '@exchange-kit/partner-client';
import type {
  UseMutationResult,
  UseQueryResult,
  UseSuspenseQueryResult,
} from '@tanstack/react-query';
import { describe, expectTypeOf, it } from 'vitest';
import type { QuickExchangeError } from './errors.js';
import { createQuickExchange } from './provider.js';
import { transactionQueryOptions } from './queries.js';
import {
  type MethodChoice,
  type RequirementValue,
  type SettlementRequirement,
  type TransactionFlow,
  type TransactionOrder,
  useTransaction,
} from './transaction.js';
import { useSuspenseTransactionQuery, useTransactionQuery } from './transaction-calls.js';

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

  it("exposes TanStack's query and mutations with the kit's errors, and the flow's facts", () => {
    expectTypeOf(useTransaction).returns.toEqualTypeOf<TransactionFlow>();
    expectTypeOf<TransactionFlow['query']>().toEqualTypeOf<
      UseQueryResult<Transaction, QuickExchangeError>
    >();
    expectTypeOf<TransactionFlow['transactionStatus']>().toEqualTypeOf<
      TransactionStatus | undefined
    >();
    expectTypeOf<TransactionFlow['funding']>().toEqualTypeOf<SettlementInstruction | undefined>();
    expectTypeOf<TransactionFlow['expired']>().toEqualTypeOf<boolean>();
    expectTypeOf<TransactionFlow['clientRefTaken']>().toEqualTypeOf<boolean>();
    expectTypeOf<TransactionFlow['startOver']>().toEqualTypeOf<() => void>();
    expectTypeOf<TransactionFlow['create']>().toEqualTypeOf<
      UseMutationResult<Transaction, QuickExchangeError, TransactionOrder>
    >();
    expectTypeOf<TransactionFlow['chooseMethod']['mutateAsync']>()
      .parameter(0)
      .toEqualTypeOf<MethodChoice>();
    expectTypeOf<TransactionFlow['submit']['variables']>().toEqualTypeOf<
      RequirementValue | undefined
    >();
    expectTypeOf<
      TransactionFlow['requote']['mutateAsync']
    >().returns.resolves.toEqualTypeOf<Transaction>();
    expectTypeOf<MethodChoice['method']>().toEqualTypeOf<
      'BLOCKCHAIN_TRANSFER' | 'BLOCKCHAIN_DELEGATED_BROADCAST' | 'SERVICE_PARTNER_WALLET'
    >();
  });

  it('reads a transaction as a plain or suspense query, and from typed query options', () => {
    expectTypeOf(useTransactionQuery('id')).toEqualTypeOf<
      UseQueryResult<Transaction, QuickExchangeError>
    >();
    expectTypeOf(useSuspenseTransactionQuery('id')).toEqualTypeOf<
      UseSuspenseQueryResult<Transaction, QuickExchangeError>
    >();
    expectTypeOf(
      useTransactionQuery('id', {}, { select: (transaction) => transaction.status }).data,
    ).toEqualTypeOf<TransactionStatus | undefined>();
    const options = transactionQueryOptions(
      createQuickExchange({ partnersUrl: 'u', publicApiKey: 'k' }),
      'id',
    );
    expectTypeOf(options.queryFn).not.toBeUndefined();
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
