/** The partner's listing of its transactions, oldest first, paged by creation time. */
import type { components } from '@exchange-kit/contract/partner';
import type { PartnerHandlerOf } from '../domain/operation.js';
import type { Queryable } from '../domain/queryable.js';
import { instructionsOf } from './instructions.js';
import { ENVIRONMENT, requireOwnedPartner } from './partners.js';
import {
  renderPartnerTransaction,
  type TransactionRow,
  transactionColumns,
} from './transactions.js';

type Selection = components['schemas']['PartnerTransactionSelection'];

export const LISTING_LIMIT = 100;

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
  // The edge has checked every filter against the operation's query schema.
  const selection: Omit<Selection, 'limit' | 'count'> = { ...query };
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
