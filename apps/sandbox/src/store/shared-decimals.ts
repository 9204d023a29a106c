import { D } from '../state/records.js';

/**
 * Reads decimals so that equal values share one object: a D is never changed in place, and
 * a store of a million orders repeats a few thousand prices and quantities (and zeros) far
 * more often than it holds new ones. Past `most` distinct values a new one is read alone.
 */
export function sharedDecimals(most = 100_000): (value: unknown) => D {
  const seen = new Map<string, D>();
  return (value) => {
    const text = String(value);
    let decimal = seen.get(text);
    if (decimal === undefined) {
      decimal = new D(text);
      if (seen.size < most) seen.set(text, decimal);
    }
    return decimal;
  };
}
