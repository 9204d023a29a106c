import { Decimal } from 'decimal.js';
import { describe, expectTypeOf, it } from 'vitest';
import type { Currency, Product } from './index.js';
import {
  fetchMarketRules,
  type MarketRules,
  marketRules,
  type PrecisionProblems,
  priceToPrecision,
  quantityToPrecision,
  type RoundingMode,
} from './precision.js';

declare const rules: MarketRules;
declare const product: Product;
declare const currencies: Currency[];

describe('precision helpers', () => {
  it('take numbers, decimal strings or Decimals and give decimal strings', () => {
    expectTypeOf(priceToPrecision(rules, 0.3)).toEqualTypeOf<string>();
    expectTypeOf(priceToPrecision(rules, new Decimal('0.3'), 'half-even')).toEqualTypeOf<string>();
    expectTypeOf(quantityToPrecision(rules, '0.3', 'up')).toEqualTypeOf<string>();
  });

  it('round a price with a product alone, and need the step and minimum for a quantity', () => {
    expectTypeOf(priceToPrecision).toBeCallableWith(product, '1');
    // @ts-expect-error a product does not say its quantity step: that is its base currency's
    void quantityToPrecision(product, '1');
    expectTypeOf(marketRules(product, currencies)).toEqualTypeOf<MarketRules>();
    expectTypeOf(fetchMarketRules).parameter(1).toEqualTypeOf<number | string>();
  });

  it('name their rounding modes', () => {
    expectTypeOf<RoundingMode>().toEqualTypeOf<
      'up' | 'down' | 'ceil' | 'floor' | 'half-up' | 'half-down' | 'half-even'
    >();
    // @ts-expect-error ccxt's constant, not a mode here: 'down' truncates
    void priceToPrecision(rules, '1', 'TRUNCATE');
  });

  it('report only codes the spec documents for createOrder', () => {
    expectTypeOf<PrecisionProblems>().toEqualTypeOf<{
      price?: 'not_a_multiple_of_the_tick_size';
      quantity?: 'less_than_order_size' | 'not_a_multiple_of_the_quantity_step';
    }>();
  });
});
