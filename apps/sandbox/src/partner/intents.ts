/** Intents: the fixed economics of a transaction that the widget lets users fulfil. */
import { randomUUID } from 'node:crypto';
import type { zCreateIntentBody } from '@exchange-kit/contract/partner/schemas';
import type * as z from 'zod/mini';
import type { PartnerHandlerOf } from '../domain/operation.js';
import type { Queryable } from '../domain/queryable.js';
import { invalid, notFound, rejectNul } from './errors.js';
import { checkMethod } from './methods.js';
import { ENVIRONMENT, requireOwnedPartner } from './partners.js';
import { checkQuantity, hasPrice, requireAsset } from './quotes.js';
import type { Intent, Method } from './schema-types.js';

type IntentCreate = z.infer<typeof zCreateIntentBody>;

export interface IntentRow {
  id: string;
  partner_id: number;
  strategy: Intent['strategy'];
  payout_method: Method;
  payout_currency: string;
  payout_quantity: string | null;
  funding_method: Method | null;
  funding_currency: string | null;
  funding_quantity: string | null;
  partner_order_id: string | null;
  partner_ref: string | null;
  partner_tags: string[] | null;
  expires_at: string | number | null;
  created_at: string | number;
  consumed_at: string | number | null;
}

const columns = `id, partner_id, strategy, payout_method, payout_currency,
  payout_quantity::text AS payout_quantity, funding_method, funding_currency,
  funding_quantity::text AS funding_quantity, partner_order_id, partner_ref, partner_tags,
  expires_at, created_at, consumed_at`;

function side(method: Method | null, currency: string | null, quantity: string | null) {
  if (method === null || currency === null) return null;
  return quantity === null ? { method, currency } : { method, currency, quantity };
}

export function renderIntent(row: IntentRow): Intent {
  const intent: Intent = {
    id: row.id,
    created_at: String(row.created_at),
    expires_at: row.expires_at === null ? null : String(row.expires_at),
    strategy: row.strategy,
    funding_settlement: side(row.funding_method, row.funding_currency, row.funding_quantity),
    payout_settlement: side(row.payout_method, row.payout_currency, row.payout_quantity),
  };
  if (row.partner_order_id !== null) intent.partner_order_id = row.partner_order_id;
  if (row.partner_ref !== null) intent.partner_ref = row.partner_ref;
  if (row.partner_tags !== null) intent.partner_tags = row.partner_tags;
  return intent;
}

async function checkIntent(db: Queryable, request: IntentCreate, now: number): Promise<void> {
  const { payout_settlement: payout, funding_settlement: funding } = request;
  // Quantity is fixed on exactly one side; the quote prices the other.
  if (payout.quantity === undefined && funding?.quantity === undefined) {
    throw invalid('payout_settlement.quantity', 'required', 'A quantity is required on one side');
  }
  if (payout.quantity !== undefined && funding?.quantity !== undefined) {
    throw invalid('funding_settlement.quantity', 'quantity_on_one_side_only');
  }
  const payoutAsset = await requireAsset(db, payout.currency, 'payout_settlement.currency');
  checkMethod('PAYOUT', payout.method, payoutAsset, 'payout_settlement.method');
  if (payout.quantity !== undefined) {
    checkQuantity(payout.quantity, payoutAsset, 'payout_settlement.quantity');
  }
  if (funding) {
    const fundingAsset = await requireAsset(db, funding.currency, 'funding_settlement.currency');
    checkMethod('FUNDING', funding.method, fundingAsset, 'funding_settlement.method');
    if (funding.quantity !== undefined) {
      checkQuantity(funding.quantity, fundingAsset, 'funding_settlement.quantity');
    }
    if (!(await hasPrice(db, funding.currency, payout.currency))) {
      throw invalid('funding_settlement.currency', 'unsupported_pair');
    }
  }
  // Also checked by the body schema; repeated so that the column's limit never surfaces as a 5xx.
  if ((request.partner_order_id?.length ?? 0) > 40) throw invalid('partner_order_id', 'too_long');
  if (request.expires_at !== undefined && request.expires_at <= now) {
    throw invalid('expires_at', 'must_be_in_the_future');
  }
}

export const createIntent: PartnerHandlerOf<'createIntent'> = async ({
  body,
  path,
  caller,
  db,
  now,
}) => {
  rejectNul(body);
  const request = body;
  const partner = await requireOwnedPartner(db, caller, path.public_api_key);
  if (request.public_api_key !== undefined && request.public_api_key !== partner.publicApiKey) {
    throw invalid('public_api_key', 'does_not_match_path');
  }
  await checkIntent(db, request, now);
  const { payout_settlement: payout, funding_settlement: funding } = request;
  const { rows } = await db.query<IntentRow>(
    `INSERT INTO qe_intents (id, partner_id, strategy, payout_method, payout_currency,
       payout_quantity, funding_method, funding_currency, funding_quantity, partner_order_id,
       partner_ref, partner_tags, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9::numeric, $10, $11, $12::jsonb, $13, $14)
     RETURNING ${columns}`,
    [
      randomUUID(),
      partner.id,
      request.strategy,
      payout.method,
      payout.currency,
      payout.quantity ?? null,
      funding?.method ?? null,
      funding?.currency ?? null,
      funding?.quantity ?? null,
      request.partner_order_id ?? null,
      request.partner_ref ?? null,
      request.partner_tags === undefined ? null : JSON.stringify(request.partner_tags),
      request.expires_at ?? null,
      now,
    ],
  );
  const row = rows[0] as IntentRow;
  return {
    status: 200,
    body: {
      success: true,
      environment: ENVIRONMENT,
      message: 'Intent created. It can now be fulfilled by a user in the widget.',
      payload: renderIntent(row),
    },
  };
};

/**
 * Takes an intent for a transaction. The row stays locked until the call's transaction ends, so
 * of concurrent attempts on a ONE_TO_ONE_ATTEMPTED intent exactly one finds it unconsumed.
 * `replay` is asked first when the intent is already consumed: a retry of the very attempt
 * that consumed it (same client_ref) is answered with that attempt's transaction.
 */
export async function claimIntent<T>(
  db: Queryable,
  intentId: string,
  partnerId: number,
  now: number,
  replay: () => Promise<T | undefined>,
): Promise<{ intent: IntentRow } | { replayed: T }> {
  const { rows } = await db.query<IntentRow>(
    `SELECT ${columns} FROM qe_intents WHERE id = $1 FOR UPDATE`,
    [intentId],
  );
  const intent = rows[0];
  // Another partner's intent is reported as absent rather than as forbidden.
  if (!intent || Number(intent.partner_id) !== partnerId) throw notFound('Intent', 'intent_id');
  if (intent.strategy === 'ONE_TO_ONE_ATTEMPTED' && intent.consumed_at !== null) {
    const replayed = await replay();
    if (replayed !== undefined) return { replayed };
    throw invalid(
      'intent_id',
      'already_attempted',
      `Intent ${intentId} was already attempted; a ONE_TO_ONE_ATTEMPTED intent serves one attempt`,
    );
  }
  if (intent.expires_at !== null && Number(intent.expires_at) <= now) {
    throw invalid('intent_id', 'expired', `Intent ${intentId} expired`);
  }
  if (intent.strategy === 'ONE_TO_ONE_ATTEMPTED') {
    await db.query('UPDATE qe_intents SET consumed_at = $2 WHERE id = $1', [intentId, now]);
  }
  return { intent };
}
