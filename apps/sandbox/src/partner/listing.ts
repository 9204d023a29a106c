/** The partner's listing of its transactions, oldest first, paged by creation time. */
import type { components } from '@exchange-kit/contract/partner';
import { zTransactionStatus, zUuid } from '@exchange-kit/contract/partner/schemas';
import type { PartnerHandlerOf } from '../domain/operation.js';
import type { Queryable } from '../domain/queryable.js';
import { invalid } from './errors.js';
import { instructionsOf } from './instructions.js';
import { ENVIRONMENT, requireOwnedPartner } from './partners.js';
import {
  renderPartnerTransaction,
  type TransactionRow,
  transactionColumns,
} from './transactions.js';

type Selection = components['schemas']['PartnerTransactionSelection'];

export const LISTING_LIMIT = 100;

/** The filters as the query schema reads them, or as a caller of the handler sends them. */
type Filters = Partial<Record<'min_ts' | 'max_ts' | 'status' | 'intent_id', string | number>>;

function millis(query: Filters, field: 'min_ts' | 'max_ts'): number | undefined {
  const given = query[field];
  if (given === undefined) return undefined;
  const value = /^[0-9]+$/.test(String(given)) ? Number(given) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw invalid(field, 'invalid', `${field} must be Unix milliseconds`);
  }
  return value;
}

function filters(query: Filters): Omit<Selection, 'limit' | 'count'> {
  const selection: Omit<Selection, 'limit' | 'count'> = {};
  const minTs = millis(query, 'min_ts');
  const maxTs = millis(query, 'max_ts');
  if (minTs !== undefined) selection.min_ts = minTs;
  if (maxTs !== undefined) selection.max_ts = maxTs;
  if (query.status !== undefined) {
    const status = zTransactionStatus.safeParse(query.status);
    if (!status.success) throw invalid('status', 'invalid', 'status is not a transaction status');
    selection.status = status.data;
  }
  if (query.intent_id !== undefined) {
    const intentId = zUuid.safeParse(query.intent_id);
    if (!intentId.success) throw invalid('intent_id', 'invalid', 'intent_id is not a UUID');
    selection.intent_id = intentId.data;
  }
  return selection;
}

async function select(
  db: Queryable,
  partnerId: number,
  selection: Omit<Selection, 'limit' | 'count'>,
) {
  // created_at is unique per partner (see qe_partner_clocks), so this order is total.
  const { rows } = await db.query<TransactionRow>(
    `SELECT ${transactionColumns} FROM qe_transactions
      WHERE partner_id = $1
        AND ($2::bigint IS NULL OR created_at >= $2::bigint)
        AND ($3::bigint IS NULL OR created_at <= $3::bigint)
        AND ($4::text IS NULL OR status = $4::text)
        AND ($5::uuid IS NULL OR intent_id = $5::uuid)
      ORDER BY created_at
      LIMIT ${LISTING_LIMIT}`,
    [
      partnerId,
      selection.min_ts ?? null,
      selection.max_ts ?? null,
      selection.status ?? null,
      selection.intent_id ?? null,
    ],
  );
  return rows;
}

export const listPartnerTransactions: PartnerHandlerOf<'listPartnerTransactions'> = async ({
  path,
  query,
  caller,
  db,
}) => {
  const partner = await requireOwnedPartner(db, caller, path.public_api_key);
  const selection = filters(query);
  const rows = await select(db, partner.id, selection);
  const instructions = await instructionsOf(
    db,
    rows.map((row) => row.id),
  );
  return {
    status: 200,
    body: {
      success: true,
      environment: ENVIRONMENT,
      payload: {
        transactions: rows.map((row) =>
          renderPartnerTransaction(row, instructions.get(row.id) ?? []),
        ),
        selection: { ...selection, limit: LISTING_LIMIT, count: rows.length },
      },
    },
  };
};
