/**
 * Rounding prices and quantities to what a product accepts, as ccxt's `priceToPrecision` and
 * `amountToPrecision` do, exactly: decimal strings in, decimal strings out, decimal.js between.
 * A subpath of its own, so that a client which never rounds carries no decimal.js.
 */
import type { operationTable } from '@exchange-kit/contract/exchange';
import type { DecimalInput } from '@exchange-kit/core';
import { InvalidDecimalError } from '@exchange-kit/core';
import { decimal, isMultipleOf, type RoundingMode, roundToStep } from '@exchange-kit/core/decimal';
import type { Currency, ExchangeClient, Product } from './client.js';

export type { RoundingMode } from '@exchange-kit/core/decimal';

/** What rounds a price: the product's tick size. A Product has it. */
export interface PriceRules {
  tick_size: DecimalInput;
}

/** What rounds a quantity: its step and the smallest order. */
export interface QuantityRules {
  /** Quantities are whole numbers of this step: 10^-assets_precision of the base currency. */
  quantity_step: string;
  /** The base currency's `minimum_order_quantity`. */
  minimum_quantity: string;
}

/** Everything an order of one product must respect, in the spec's field names. */
export interface MarketRules extends PriceRules, QuantityRules {
  product_id: string;
  tick_size: string;
}

/**
 * The rules of `product`, from its tick size and from its base currency in `currencies`
 * (`assets_precision` gives the quantity step, `minimum_order_quantity` the smallest order).
 */
export function marketRules(
  product: Pick<Product, 'id' | 'tick_size' | 'base_currency'>,
  currencies: readonly Pick<Currency, 'currency' | 'assets_precision' | 'minimum_order_quantity'>[],
): MarketRules {
  const base = currencies.find((currency) => currency.currency === product.base_currency);
  if (!base) {
    throw new InvalidDecimalError(
      'base_currency',
      `no currency ${product.base_currency} among the ${currencies.length} given`,
    );
  }
  return {
    product_id: product.id,
    tick_size: decimal(product.tick_size, 'tick_size').toFixed(),
    quantity_step: decimal(1).div(decimal(10).pow(base.assets_precision)).toFixed(),
    minimum_quantity: decimal(base.minimum_order_quantity, 'minimum_order_quantity').toFixed(),
  };
}

/** Fetches a product and the currencies, and returns the product's rules. */
export async function fetchMarketRules(
  client: Pick<ExchangeClient, 'products' | 'currencies'>,
  productId: number | string,
): Promise<MarketRules> {
  const [product, currencies] = await Promise.all([
    client.products.get(productId),
    client.currencies.list(),
  ]);
  return marketRules(product, currencies);
}

/**
 * `price` rounded to a multiple of the tick size, as a decimal string. `half-up` by default,
 * as ccxt rounds; a buyer who must not pay more passes `'down'`, a seller `'up'`.
 */
export function priceToPrecision(
  rules: PriceRules,
  price: DecimalInput,
  mode: RoundingMode = 'half-up',
): string {
  return roundToStep(price, rules.tick_size, mode, 'price', 'tick_size');
}

/**
 * `quantity` rounded to a multiple of the quantity step (`down` by default, as ccxt truncates,
 * so an order never asks for more than was meant), as a decimal string. Throws
 * InvalidDecimalError naming `quantity` when the result is below the minimum order quantity:
 * the exchange would refuse it with `less_than_order_size`.
 */
export function quantityToPrecision(
  rules: QuantityRules,
  quantity: DecimalInput,
  mode: RoundingMode = 'down',
): string {
  const rounded = roundToStep(quantity, rules.quantity_step, mode, 'quantity', 'quantity_step');
  if (decimal(rounded).lt(decimal(rules.minimum_quantity, 'minimum_quantity'))) {
    throw new InvalidDecimalError(
      'quantity',
      `${rounded} is below the minimum order quantity ${rules.minimum_quantity}`,
    );
  }
  return rounded;
}

// Codes of the spec's createOrder 422: one it stops listing no longer compiles here.
type Codes<Field extends 'price' | 'quantity'> =
  (typeof operationTable)['createOrder']['errorCodes'][Field][number];

/** Why the exchange would refuse this price or quantity, field by field, with its codes. */
export interface PrecisionProblems {
  price?: Extract<Codes<'price'>, 'not_a_multiple_of_the_tick_size'>;
  quantity?: Extract<
    Codes<'quantity'>,
    'less_than_order_size' | 'not_a_multiple_of_the_quantity_step'
  >;
}

/**
 * What the exchange would refuse in an order's price and quantity, before sending it: `{}`
 * when both fit. The codes are those of the exchange's 422.
 */
export function precisionProblems(
  rules: MarketRules,
  order: { price?: DecimalInput; quantity: DecimalInput },
): PrecisionProblems {
  const problems: PrecisionProblems = {};
  if (order.price !== undefined && !isMultipleOf(decimal(order.price, 'price'), rules.tick_size)) {
    problems.price = 'not_a_multiple_of_the_tick_size';
  }
  const quantity = decimal(order.quantity, 'quantity');
  if (quantity.lt(rules.minimum_quantity)) problems.quantity = 'less_than_order_size';
  else if (!isMultipleOf(quantity, rules.quantity_step)) {
    problems.quantity = 'not_a_multiple_of_the_quantity_step';
  }
  return problems;
}
