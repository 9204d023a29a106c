import type { SettlementInstruction } from '@exchange-kit/partner-client';
import { describe, expectTypeOf, it } from 'vitest';
import { type SettlementCountdown, useSettlementCountdown } from './countdown.js';

describe('useSettlementCountdown types', () => {
  it('takes an instruction or nothing and may have no expiry', () => {
    expectTypeOf(useSettlementCountdown)
      .parameter(0)
      .toEqualTypeOf<SettlementInstruction | undefined>();
    expectTypeOf(useSettlementCountdown).returns.toEqualTypeOf<SettlementCountdown>();
    expectTypeOf<SettlementCountdown['msLeft']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<SettlementCountdown['expired']>().toEqualTypeOf<boolean>();
  });
});
