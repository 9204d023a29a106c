/** Intents: the fixed economics of a transaction that the widget lets users fulfil. */
import { randomUUID } from 'node:crypto';
import type { Intent, SettlementMethod as Method } from '@exchange-kit/contract/partner';
import type { zCreateIntentBody } from '@exchange-kit/contract/partner/schemas';
import type * as z from 'zod/mini';
import { canonicalUuid } from '../handling/ids.js';
import type { PartnerHandlerOf } from '../handling/operation.js';
import type { Journal } from '../state/journal.js';
import type { Intent as IntentRow, PartnerState } from '../state/partner-state.js';
import { invalid, notFound } from './errors.js';
import { checkMethod } from './methods.js';
import { ENVIRONMENT, requireOwnedPartner } from './partners.js';
import { checkQuantity, hasPrice, requireAsset } from './quotes.js';

type IntentCreate = z.infer<typeof zCreateIntentBody>;

function side(method: Method | null, currency: string | null, quantity: string | null) {
  if (method === null || currency === null) return null;
  return quantity === null ? { method, currency } : { method, currency, quantity };
}

export function renderIntent(row: IntentRow): Intent {
  const intent: Intent = {
    id: row.id,
    created_at: String(row.createdAt),
    expires_at: row.expiresAt === null ? null : String(row.expiresAt),
    strategy: row.strategy,
    funding_settlement: side(row.fundingMethod, row.fundingCurrency, row.fundingQuantity),
    payout_settlement: side(row.payoutMethod, row.payoutCurrency, row.payoutQuantity),
  };
  if (row.partnerOrderId !== null) intent.partner_order_id = row.partnerOrderId;
  if (row.partnerRef !== null) intent.partner_ref = row.partnerRef;
  if (row.partnerTags !== null) intent.partner_tags = row.partnerTags;
  return intent;
}

function checkIntent(state: PartnerState, request: IntentCreate, now: number): void {
  const { payout_settlement: payout, funding_settlement: funding } = request;
  // Quantity is fixed on exactly one side; the quote prices the other.
  if (payout.quantity === undefined && funding?.quantity === undefined) {
    throw invalid('payout_settlement.quantity', 'required', 'A quantity is required on one side');
  }
  if (payout.quantity !== undefined && funding?.quantity !== undefined) {
    throw invalid('funding_settlement.quantity', 'quantity_on_one_side_only');
  }
  const payoutAsset = requireAsset(state, payout.currency, 'payout_settlement.currency');
  checkMethod('PAYOUT', payout.method, payoutAsset, 'payout_settlement.method');
  if (payout.quantity !== undefined) {
    checkQuantity(payout.quantity, payoutAsset, 'payout_settlement.quantity');
  }
  if (funding) {
    const fundingAsset = requireAsset(state, funding.currency, 'funding_settlement.currency');
    checkMethod('FUNDING', funding.method, fundingAsset, 'funding_settlement.method');
    if (funding.quantity !== undefined) {
      checkQuantity(funding.quantity, fundingAsset, 'funding_settlement.quantity');
    }
    if (!hasPrice(state, funding.currency, payout.currency)) {
      throw invalid('funding_settlement.currency', 'unsupported_pair');
    }
  }
  // Also checked by the body schema; repeated so that the column's limit never surfaces as a 5xx.
  if ((request.partner_order_id?.length ?? 0) > 40) throw invalid('partner_order_id', 'too_long');
  if (request.expires_at !== undefined && request.expires_at <= now) {
    throw invalid('expires_at', 'must_be_in_the_future');
  }
}

export const createIntent: PartnerHandlerOf<'createIntent'> = ({
  body,
  path,
  caller,
  journal,
  now,
}) => {
  const request = body;
  const partner = requireOwnedPartner(journal.partner, caller, path.public_api_key);
  if (request.public_api_key !== undefined && request.public_api_key !== partner.publicApiKey) {
    throw invalid('public_api_key', 'does_not_match_path');
  }
  checkIntent(journal.partner, request, now);
  const { payout_settlement: payout, funding_settlement: funding } = request;
  const row = journal.add('intent', {
    id: randomUUID(),
    partnerId: partner.id,
    strategy: request.strategy,
    payoutMethod: payout.method,
    payoutCurrency: payout.currency,
    payoutQuantity: payout.quantity ?? null,
    fundingMethod: funding?.method ?? null,
    fundingCurrency: funding?.currency ?? null,
    fundingQuantity: funding?.quantity ?? null,
    partnerOrderId: request.partner_order_id ?? null,
    partnerRef: request.partner_ref ?? null,
    partnerTags: request.partner_tags ?? null,
    expiresAt: request.expires_at ?? null,
    createdAt: now,
    consumedAt: null,
  });
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
 * Refuses, naming `field`, an intent no transaction can fulfil any more: a ONE_TO_ONE_ATTEMPTED
 * one already attempted, or one past its expiry.
 */
export function requireFulfillable(intent: IntentRow, field: string, now: number): void {
  if (intent.strategy === 'ONE_TO_ONE_ATTEMPTED' && intent.consumedAt !== null) {
    throw invalid(
      field,
      'already_attempted',
      `Intent ${intent.id} was already attempted; a ONE_TO_ONE_ATTEMPTED intent serves one attempt`,
    );
  }
  if (intent.expiresAt !== null && intent.expiresAt <= now) {
    throw invalid(field, 'expired', `Intent ${intent.id} expired`);
  }
}

/**
 * Takes an intent for a transaction: of the attempts on a ONE_TO_ONE_ATTEMPTED intent, which
 * the sequencer decides one at a time, exactly one finds it unconsumed. A retry of the attempt
 * that consumed it (same client_ref) never gets here: its transaction is answered before.
 */
export function claimIntent(
  journal: Journal,
  intentId: string,
  partnerId: number,
  now: number,
): IntentRow {
  const key = canonicalUuid(intentId);
  const intent = key === undefined ? undefined : journal.partner.intents.get(key);
  // Another partner's intent is reported as absent rather than as forbidden.
  if (!intent || intent.partnerId !== partnerId) throw notFound('Intent', 'intent_id');
  requireFulfillable(intent, 'intent_id', now);
  if (intent.strategy === 'ONE_TO_ONE_ATTEMPTED') {
    journal.touch('intent', intent).consumedAt = now;
  }
  return intent;
}
