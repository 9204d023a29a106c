import { Refusal } from '../handling/errors.js';
import type { Journal } from '../state/journal.js';
import type { Currency, D } from '../state/records.js';

/**
 * The currency `code` names (codes are case sensitive), which must be of `type`: refused
 * naming `currency`, `not_found` for no currency and `not_a_<type>_currency` for one of the
 * other type, so a caller told JPY is not found does not look for a typo.
 */
export function currencyOfType(
  journal: Journal,
  code: string,
  type: Currency['currencyType'],
): Currency {
  const currency = journal.exchange.currencies.get(code);
  if (!currency) throw new Refusal('currency', 'not_found');
  if (currency.currencyType !== type) throw new Refusal('currency', `not_a_${type}_currency`);
  return currency;
}

/**
 * Whether `amount` has more decimal places than `currency` keeps (`assets_precision`): an
 * amount moved into or held from a balance that finely would leave what no call could take
 * back to zero, so deposits, withdrawals, loan bids and margin are held to it.
 */
export const finerThan = (currency: Currency, amount: D): boolean =>
  amount.decimalPlaces() > currency.assetsPrecision;
