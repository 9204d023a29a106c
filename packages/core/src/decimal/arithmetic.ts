import { Decimal as DecimalJs } from 'decimal.js';
import { InvalidDecimalError } from '../errors.js';
import { type DecimalInput, toDecimalString } from './canonical.js';

/**
 * decimal.js with room for every digit the interfaces use: 60 significant digits, and
 * banker's rounding (half to even) when an operation must round.
 */
export const Decimal = DecimalJs.clone({
  precision: 60,
  rounding: DecimalJs.ROUND_HALF_EVEN,
  toExpNeg: -100,
  toExpPos: 100,
});
export type Decimal = DecimalJs;

/** A Decimal from anything a request field accepts; errors name `field`. */
export function decimal(value: DecimalInput, field = 'value'): Decimal {
  return new Decimal(toDecimalString(value, field));
}

/** How `round` breaks ties and treats the discarded digits. */
export type RoundingMode = 'up' | 'down' | 'ceil' | 'floor' | 'half-up' | 'half-down' | 'half-even';

const modes: Record<RoundingMode, DecimalJs.Rounding> = {
  up: DecimalJs.ROUND_UP,
  down: DecimalJs.ROUND_DOWN,
  ceil: DecimalJs.ROUND_CEIL,
  floor: DecimalJs.ROUND_FLOOR,
  'half-up': DecimalJs.ROUND_HALF_UP,
  'half-down': DecimalJs.ROUND_HALF_DOWN,
  'half-even': DecimalJs.ROUND_HALF_EVEN,
};

/** `value` with at most `places` decimals, as a canonical decimal string. */
export function round(value: DecimalInput, places: number, mode: RoundingMode): string {
  return toDecimalString(decimal(value).toDecimalPlaces(places, modes[mode]), 'value');
}

/**
 * `value` rounded to a whole number of `step`s (a tick size, a quantity step), as a canonical
 * decimal string: `roundToStep('5000.37', '0.5', 'down')` is `"5000"`. Exact, so no float
 * artefact such as 0.30000000000000004 ever comes out. Errors name `field` for the value and
 * `stepField` for a step that is not positive.
 */
export function roundToStep(
  value: DecimalInput,
  step: DecimalInput,
  mode: RoundingMode,
  field = 'value',
  stepField = 'step',
): string {
  const size = positiveStep(step, stepField);
  const steps = decimal(value, field).div(size).toDecimalPlaces(0, modes[mode]);
  return toDecimalString(steps.times(size), field);
}

/** Whether `value` is a whole number of `step`s. */
export function isMultipleOf(value: DecimalInput, step: DecimalInput, stepField = 'step'): boolean {
  return decimal(value).mod(positiveStep(step, stepField)).isZero();
}

function positiveStep(step: DecimalInput, field: string): Decimal {
  const size = decimal(step, field);
  if (!size.isPositive() || size.isZero()) {
    throw new InvalidDecimalError(field, `${size.toFixed()} is not a positive step`);
  }
  return size;
}

/** The exact sum, as a canonical decimal string. */
export function sum(...values: DecimalInput[]): string {
  return toDecimalString(
    values.reduce<Decimal>(
      (total, value, index) => total.plus(decimal(value, `values[${index}]`)),
      new Decimal(0),
    ),
    'sum',
  );
}
