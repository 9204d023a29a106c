/** The partner's listing of its transactions, oldest first, paged by creation time. */
import type { components } from '@exchange-kit/contract/partner';
import { canonicalUuid } from '../handling/ids.js';
import type { PartnerHandlerOf } from '../handling/operation.js';
import type { PartnerState } from '../state/partner-state.js';
import { ENVIRONMENT, requireOwnedPartner } from './partners.js';
import { renderPartnerTransaction } from './transactions.js';

type Selection = components['schemas']['PartnerTransactionSelection'];

export const LISTING_LIMIT = 100;

function select(
  state: PartnerState,
  partnerId: number,
  selection: Omit<Selection, 'limit' | 'count'>,
) {
  const intentId =
    selection.intent_id === undefined ? undefined : (canonicalUuid(selection.intent_id) ?? '');
  const selected = [];
  // created_at is unique per partner (see nextCreatedAt), so this order is total.
  for (const transaction of state.transactionsByPartner.get(partnerId) ?? []) {
    if (selection.min_ts != null && transaction.createdAt < selection.min_ts) continue;
    if (selection.max_ts != null && transaction.createdAt > selection.max_ts) break;
    if (selection.status != null && transaction.status !== selection.status) continue;
    if (intentId !== undefined && transaction.intentId !== intentId) continue;
    selected.push(transaction);
    if (selected.length === LISTING_LIMIT) break;
  }
  return selected;
}

export const listPartnerTransactions: PartnerHandlerOf<'listPartnerTransactions'> = ({
  path,
  query,
  caller,
  journal,
}) => {
  const state = journal.partner;
  const partner = requireOwnedPartner(state, caller, path.public_api_key);
  // The edge has checked every filter against the operation's query schema.
  const selection: Omit<Selection, 'limit' | 'count'> = { ...query };
  const rows = select(state, partner.id, selection);
  return {
    status: 200,
    body: {
      success: true,
      environment: ENVIRONMENT,
      payload: {
        transactions: rows.map((row) =>
          renderPartnerTransaction(row, state.instructionsOf(row.id)),
        ),
        selection: { ...selection, limit: LISTING_LIMIT, count: rows.length },
      },
    },
  };
};
