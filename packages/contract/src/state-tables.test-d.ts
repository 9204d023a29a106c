import { describe, expectTypeOf, it } from 'vitest';
import type { components as exchange } from './exchange.js';
import type { components as partner } from './partner.js';
import type { RequirementId, StateFlag, StateOf } from './state-tables.js';

// A state added to a spec enum and not to the tables (or the other way round) fails here.
describe('state tables, typed', () => {
  it('know exactly the states of the enums they name', () => {
    expectTypeOf<StateOf<'order'>>().toEqualTypeOf<exchange['schemas']['OrderStatus']>();
    expectTypeOf<StateOf<'transaction'>>().toEqualTypeOf<partner['schemas']['TransactionStatus']>();
    expectTypeOf<StateOf<'intent-strategy'>>().toEqualTypeOf<
      partner['schemas']['IntentStrategy']
    >();
  });

  it('name their flags and ids as literals', () => {
    expectTypeOf<StateFlag>().toEqualTypeOf<'open' | 'polled' | 'terminal'>();
    expectTypeOf<'ORDER-CANCEL-LIVE'>().toExtend<RequirementId>();
  });
});
