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
  if (plan === true) {
    return typeof value === 'number' || typeof value === 'string'
      ? toDecimalString(value, path)
      : value;
  }
  if (value === null || typeof value !== 'object') return value;
  const node = value as Record<string, unknown>;
  for (const key in plan) {
    const inner = plan[key] as DecimalPlan;
    if (key === '*') {
      for (const child in node) {
        node[child] = normaliseDecimals(node[child], inner, `${path}.${child}`);
      }
    } else if (key in node) {
      node[key] = normaliseDecimals(node[key], inner, `${path}.${key}`);
    }
  }
  return value;
}
