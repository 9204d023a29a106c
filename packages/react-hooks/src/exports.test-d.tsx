import type * as PartnerClient from '@exchange-kit/partner-client';
import { describe, expectTypeOf, it } from 'vitest';
import type * as Hooks from './index.js';

describe('the partner types a page of hooks handles', () => {
  it('are exported by the hooks as the partner client has them', () => {
    expectTypeOf<Hooks.Intent>().toEqualTypeOf<PartnerClient.Intent>();
    expectTypeOf<Hooks.IntentToTradeInput>().toEqualTypeOf<PartnerClient.IntentToTradeInput>();
    expectTypeOf<Hooks.SettlementInstruction>().toEqualTypeOf<PartnerClient.SettlementInstruction>();
    expectTypeOf<Hooks.Transaction>().toEqualTypeOf<PartnerClient.Transaction>();
    expectTypeOf<Hooks.TransactionStatus>().toEqualTypeOf<PartnerClient.TransactionStatus>();
    expectTypeOf<Hooks.UserSession>().toEqualTypeOf<PartnerClient.UserSession>();
  });
});
