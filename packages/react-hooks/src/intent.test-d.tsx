import type { Intent } from '@exchange-kit/partner-client';
import type {
  UseMutationResult,
  UseQueryResult,
  UseSuspenseQueryResult,
} from '@tanstack/react-query';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type IntentOrder,
  type LoadIntent,
  orderForIntent,
  useCreateIntent,
  useIntent,
  useSuspenseIntent,
} from './intent.js';

describe('intent hook types', () => {
  it("creates through the backend function, as TanStack's mutation of its input", () => {
    const create = async (_input: { sku: string }): Promise<Intent> => ({}) as Intent;
    const result = useCreateIntent(create);
    expectTypeOf(result).toEqualTypeOf<UseMutationResult<Intent, Error, { sku: string }>>();
    expectTypeOf(result.mutateAsync).returns.resolves.toEqualTypeOf<Intent>();
    expectTypeOf(result.variables).toEqualTypeOf<{ sku: string } | undefined>();
  });

  it('loads through a function from id and signal to intent', () => {
    expectTypeOf<LoadIntent>().toEqualTypeOf<
      (intentId: string, options: { signal: AbortSignal }) => Promise<Intent>
    >();
    expectTypeOf(useIntent).parameter(0).toEqualTypeOf<string | undefined>();
    expectTypeOf(useIntent('id')).toEqualTypeOf<UseQueryResult<Intent, Error>>();
    const load: LoadIntent = async () => ({}) as Intent;
    expectTypeOf(useSuspenseIntent('id', load)).toEqualTypeOf<
      UseSuspenseQueryResult<Intent, Error>
    >();
    expectTypeOf(
      useIntent('id', { load }, { select: (intent) => intent.strategy }).data,
    ).toEqualTypeOf<Intent['strategy'] | undefined>();
    expectTypeOf(orderForIntent).returns.toEqualTypeOf<IntentOrder>();
  });
});
