import type { Queryable } from '../domain/queryable.js';
import { invalid } from './errors.js';

export interface Asset {
  code: string;
  kind: 'crypto' | 'fiat';
  precision: number;
  /** Where users pay in for blockchain funding; null for fiat. */
  depositAddress: string | null;
}

/** TTL of a snapshot quote and of the instructions priced from it. */
export const QUOTE_TTL_MS = 20_000;

export async function requireAsset(db: Queryable, code: string, field: string): Promise<Asset> {
  const { rows } = await db.query<{
    code: string;
    kind: 'crypto' | 'fiat';
    precision: number;
    deposit_address: string | null;
  }>('SELECT code, kind, precision, deposit_address FROM qe_assets WHERE code = $1', [code]);
  const row = rows[0];
  if (!row) throw invalid(field, 'unsupported_currency', `Currency ${code} is not supported`);
  return {
    code: row.code,
    kind: row.kind,
    precision: Number(row.precision),
    depositAddress: row.deposit_address,
  };
}

/** A decimal string (already pattern-checked) is positive when unsigned and not all zeros. */
export function isPositive(decimal: string): boolean {
  return !decimal.startsWith('-') && /[1-9]/.test(decimal);
}

/** Whether a decimal string has no more significant decimals than the currency settles. */
export function fitsPrecision(decimal: string, asset: Asset): boolean {
  const decimals = decimal.split('.')[1]?.replace(/0+$/, '') ?? '';
  return decimals.length <= asset.precision;
}

/** Far above any real trade, and far below where numeric arithmetic would overflow. */
const MAX_INTEGER_DIGITS = 20;

/** Refuses a quantity that is not positive, absurdly large, or finer than its currency settles. */
export function checkQuantity(decimal: string, asset: Asset, field: string): void {
  if (!isPositive(decimal)) throw invalid(field, 'must_be_positive');
  if ((decimal.split('.')[0]?.length ?? 0) > MAX_INTEGER_DIGITS) throw invalid(field, 'too_large');
  if (!fitsPrecision(decimal, asset)) {
    throw invalid(
      field,
      'too_precise',
      `${field} has more than ${asset.precision} decimals of ${asset.code}`,
    );
  }
}

export async function hasPrice(db: Queryable, a: string, b: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM qe_prices WHERE (base = $1 AND quote = $2) OR (base = $2 AND quote = $1)',
    [a, b],
  );
  return rows.length > 0;
}

/**
 * Takes a snapshot quote: `quantity` of `from` expressed in `to`, in exact numeric arithmetic,
 * cut to the precision of `to`. The caller picks the rounding so that the service never gives
 * away the remainder: what the user pays is rounded up, what the user receives is rounded down.
 * Undefined when no price links the two currencies.
 */
export async function convert(
  db: Queryable,
  quantity: string,
  from: string,
  to: string,
  rounding: 'up' | 'down',
): Promise<string | undefined> {
  const { rows } = await db.query<{ quantity: string }>(
    `SELECT trim_scale(
              CASE WHEN $4 = 'up' THEN ceil(v * 10::numeric ^ precision)
                   ELSE floor(v * 10::numeric ^ precision) END
              / 10::numeric ^ precision)::text AS quantity
       FROM (SELECT CASE WHEN p.base = $2 THEN $1::numeric * p.price
                         ELSE $1::numeric / p.price END AS v,
                    a.precision
               FROM qe_prices p JOIN qe_assets a ON a.code = $3
              WHERE (p.base = $2 AND p.quote = $3) OR (p.base = $3 AND p.quote = $2)) s`,
    [quantity, from, to, rounding],
  );
  return rows[0]?.quantity;
}
