import type { Intent } from '@exchange-kit/partner-client';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type IntentOrder,
  type LoadIntent,
  orderForIntent,
  useCreateIntent,
  useIntent,
} from './intent.js';

describe('intent hook types', () => {
  it('infers the input of the backend function', () => {
    const create = async (_input: { sku: string }): Promise<Intent> => ({}) as Intent;
    const result = useCreateIntent(create);
    expectTypeOf(result.createIntent).parameter(0).toEqualTypeOf<{ sku: string }>();
    expectTypeOf(result.createIntent).returns.resolves.toEqualTypeOf<Intent | undefined>();
  });

  it('loads through a function from id to intent', () => {
    expectTypeOf<LoadIntent>().toEqualTypeOf<(intentId: string) => Promise<Intent>>();
    expectTypeOf(useIntent).parameter(0).toEqualTypeOf<string | undefined>();
    expectTypeOf(useIntent).returns.toHaveProperty('intent').toEqualTypeOf<Intent | undefined>();
    expectTypeOf(orderForIntent).returns.toEqualTypeOf<IntentOrder>();
  });
});
