import { InvalidDecimalError } from '../errors.js';
import { toDecimalString } from './canonical.js';

/**
 * Where the decimals of a response are, generated from the spec: `true` marks a decimal,
 * an object descends into the properties it names, and `*` into every array item or map value.
 */
export type DecimalPlan = true | { readonly [key: string]: DecimalPlan };

/**
 * Rewrites, in place, every decimal the plan marks into its canonical decimal string, so a
 * value the server sent as 0.5, "0.50" or "5e-1" reaches the user as "0.5". Nulls and
 * values of another type are left for validation to report.
 */
export function normaliseDecimals(value: unknown, plan: DecimalPlan, path = '$'): unknown {
  try {
    return normalise(value, plan);
  } catch (error) {
    if (!(error instanceof InvalidDecimalError)) throw error;
    throw new InvalidDecimalError(error.field ? `${path}.${error.field}` : path, error.reason);
  }
}

/** Child keys joined as the error goes up: a body that is fine builds no path at all. */
function within(key: string, error: unknown): unknown {
  if (!(error instanceof InvalidDecimalError)) return error;
  return new InvalidDecimalError(error.field ? `${key}.${error.field}` : key, error.reason);
}

function normalise(value: unknown, plan: DecimalPlan): unknown {
  if (plan === true) {
    return typeof value === 'number' || typeof value === 'string'
      ? toDecimalString(value, '')
      : value;
  }
  if (value === null || typeof value !== 'object') return value;
  const node = value as Record<string, unknown>;
  for (const key in plan) {
    const inner = plan[key] as DecimalPlan;
    if (key === '*') {
      for (const child in node) normaliseEntry(node, child, inner);
    } else if (key in node) {
      normaliseEntry(node, key, inner);
    }
  }
  return value;
}

function normaliseEntry(node: Record<string, unknown>, key: string, plan: DecimalPlan): void {
  try {
    node[key] = normalise(node[key], plan);
  } catch (error) {
    throw within(key, error);
  }
}
