/**
 * Orders non-negative decimal strings exactly (`"10.5"` after `"9.75"`), without arithmetic:
 * a book's prices are compared, never summed.
 */
export function compareDecimals(a: string, b: string): number {
  const [aWhole = '', aFraction = ''] = a.split('.');
  const [bWhole = '', bFraction = ''] = b.split('.');
  const aInt = aWhole.replace(/^0+/, '');
  const bInt = bWhole.replace(/^0+/, '');
  if (aInt.length !== bInt.length) return aInt.length - bInt.length;
  if (aInt !== bInt) return aInt < bInt ? -1 : 1;
  const width = Math.max(aFraction.length, bFraction.length);
  const aRest = aFraction.padEnd(width, '0');
  const bRest = bFraction.padEnd(width, '0');
  return aRest === bRest ? 0 : aRest < bRest ? -1 : 1;
}
