import spec from '@exchange-kit/contract/partner/openapi.json' with { type: 'json' };
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { SettlementInstruction, Transaction } from './exports.js';
import { expiresInMs, hasStatus, missingInputs } from './instructions.js';

const examples = spec.components.schemas.TransactionCreatedResponse.examples as Array<{
  payload: Transaction;
}>;
const parametersRequired = examples
  .map((e) => e.payload)
  .find((t) => t.status === 'SETTLEMENT_PARAMETERS_REQUIRED');

describe('instruction helpers', () => {
  it('lists what an instruction still requires, leaving out what it already received', () => {
    const funding = parametersRequired?.funding_settlement as SettlementInstruction;
    expect(missingInputs(funding)).toEqual([
      { name: 'transaction_key', type: 'SIGNED_RAW_TRANSACTION' },
    ]);
    const supplied = {
      ...funding,
      received_input: {
        transaction_key: { type: 'SIGNED_RAW_TRANSACTION' as const, value: '0x02' },
      },
    };
    expect(missingInputs(supplied)).toEqual([]);
  });

  it('counts down to the expiry and stops at zero', () => {
    const funding = parametersRequired?.funding_settlement as SettlementInstruction;
    const expiry = funding.expires?.unix_ms as number;
    expect(expiresInMs(funding, expiry - 1_500)).toBe(1_500);
    expect(expiresInMs(funding, expiry + 10)).toBe(0);
    expect(expiresInMs({ ...funding, expires: undefined })).toBeUndefined();
  });

  it('narrows a transaction by status', () => {
    const transaction = parametersRequired as Transaction;
    expect(hasStatus(transaction, 'SETTLEMENT_PARAMETERS_REQUIRED', 'PENDING')).toBe(true);
    expect(hasStatus(transaction, 'FILLED')).toBe(false);
    if (hasStatus(transaction, 'PENDING', 'FILLED')) {
      expectTypeOf(transaction.status).toEqualTypeOf<'PENDING' | 'FILLED'>();
    }
  });
});
