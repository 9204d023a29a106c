/** intent_to_trade: creates a transaction, with as much of its settlement as the request gives. */
import { randomUUID } from 'node:crypto';
import type { operations } from '@exchange-kit/contract/partner';
import type { zIntentToTradeBody } from '@exchange-kit/contract/partner/schemas';
import type * as z from 'zod/mini';
import { NotAuthenticated, RetryLater } from '../domain/errors.js';
import type { Caller, DocumentedReply, PartnerHandlerOf } from '../domain/operation.js';
import type { Queryable } from '../domain/queryable.js';
import { invalid, notFound, rejectNul } from './errors.js';
import { type InstructionInput, putInstruction, settle } from './instructions.js';
import { claimIntent, type IntentRow } from './intents.js';
import {
  acceptInputs,
  checkMethod,
  requiredInputs,
  settlementField,
  setupParameters,
} from './methods.js';
import {
  type Asset,
  checkQuantity,
  convert,
  hasPrice,
  isPositive,
  QUOTE_TTL_MS,
  requireAsset,
} from './quotes.js';
import type { Direction, Method } from './schema-types.js';
import { findSession, type SessionRow } from './sessions.js';
import {
  findByClientRef,
  findTransaction,
  loadTransaction,
  nextStepMessage,
  type TransactionRow,
} from './transactions.js';

type IntentToTrade = z.infer<typeof zIntentToTradeBody>;

type TradeReply = DocumentedReply<operations['intentToTrade']>;

async function reply(db: Queryable, row: TransactionRow): Promise<TradeReply> {
  const transaction = await loadTransaction(db, row);
  return {
    status: 202,
    body: { success: true, message: nextStepMessage(transaction), payload: transaction },
  };
}

/**
 * A client_ref names one transaction of the partner (the client), so repeating it answers with
 * that transaction: creation can be retried safely, also from a session opened after a reload.
 * A caller holding a session token only sees its own session's transactions, so for another
 * session's transaction it is refused instead.
 */
async function replayClientRef(
  db: Queryable,
  session: SessionRow,
  caller: Caller,
  clientRef: string | undefined,
): Promise<TradeReply | undefined> {
  if (clientRef === undefined) return undefined;
  const existing = await findByClientRef(db, session.partner_id, clientRef);
  if (!existing) return undefined;
  if (caller.kind === 'session' && existing.session_id !== caller.sessionId) {
    throw invalid(
      'client_ref',
      'taken',
      'client_ref already names a transaction of another session',
    );
  }
  return reply(db, existing);
}

interface Sides {
  funding: Asset;
  payout: Asset;
}

/** Buying the base pays in the quote currency; selling it pays it in. */
async function sidesOf(db: Queryable, request: IntentToTrade): Promise<Sides> {
  const [base = '', quote = ''] = request.symbol.split('/');
  const baseAsset = await requireAsset(db, base, 'symbol');
  const quoteAsset = await requireAsset(db, quote, 'symbol');
  if (!(await hasPrice(db, base, quote))) {
    throw invalid('symbol', 'unsupported_symbol', `${request.symbol} is not traded`);
  }
  if (request.currency !== base && request.currency !== quote) {
    throw invalid('currency', 'not_in_symbol', `currency must be ${base} or ${quote}`);
  }
  return request.side === 'buy'
    ? { funding: quoteAsset, payout: baseAsset }
    : { funding: baseAsset, payout: quoteAsset };
}

async function sameDecimal(db: Queryable, a: string, b: string): Promise<boolean> {
  const { rows } = await db.query<{ same: boolean }>('SELECT $1::numeric = $2::numeric AS same', [
    a,
    b,
  ]);
  return rows[0]?.same === true;
}

/** The intent's fixed economics bind the request: same currencies, quantity and methods. */
async function applyIntent(
  db: Queryable,
  request: IntentToTrade,
  sides: Sides,
  intent: IntentRow,
): Promise<Record<Direction, Method | undefined>> {
  if (intent.payout_currency !== sides.payout.code) {
    throw invalid(
      'symbol',
      'does_not_match_intent',
      `The intent pays out ${intent.payout_currency}`,
    );
  }
  if (intent.funding_currency !== null && intent.funding_currency !== sides.funding.code) {
    throw invalid(
      'symbol',
      'does_not_match_intent',
      `The intent is funded in ${intent.funding_currency}`,
    );
  }
  const fixed =
    intent.payout_quantity !== null
      ? { currency: intent.payout_currency, quantity: intent.payout_quantity }
      : { currency: intent.funding_currency, quantity: intent.funding_quantity ?? '' };
  if (request.currency !== fixed.currency) {
    throw invalid(
      'currency',
      'does_not_match_intent',
      `The intent fixes a quantity of ${fixed.currency}`,
    );
  }
  if (!(await sameDecimal(db, request.quantity, fixed.quantity))) {
    throw invalid(
      'quantity',
      'does_not_match_intent',
      `The intent fixes the quantity ${fixed.quantity}`,
    );
  }
  const method = (direction: Direction, fixedMethod: Method | null): Method | undefined => {
    const requested = request[settlementField(direction)]?.method;
    if (fixedMethod !== null && requested !== undefined && requested !== fixedMethod) {
      throw invalid(`${settlementField(direction)}.method`, 'does_not_match_intent');
    }
    return requested ?? fixedMethod ?? undefined;
  };
  return {
    FUNDING: method('FUNDING', intent.funding_method),
    PAYOUT: method('PAYOUT', intent.payout_method),
  };
}

/** The quantity of the other side: given with a quote, or priced now from a snapshot quote. */
async function quantities(
  db: Queryable,
  request: IntentToTrade,
  sides: Sides,
): Promise<{ funding: string; payout: string }> {
  const givenPayout = request.currency === sides.payout.code;
  const [given, otherSide] = givenPayout
    ? [sides.payout, sides.funding]
    : [sides.funding, sides.payout];
  checkQuantity(request.quantity, given, 'quantity');
  if (request.quantity_2 !== undefined) checkQuantity(request.quantity_2, otherSide, 'quantity_2');
  const other =
    request.quantity_2 ??
    (givenPayout
      ? await convert(db, request.quantity, sides.payout.code, sides.funding.code, 'up')
      : await convert(db, request.quantity, sides.funding.code, sides.payout.code, 'down'));
  if (other === undefined || !isPositive(other)) {
    throw invalid('quantity', 'too_small', 'quantity is too small to be quoted');
  }
  return givenPayout
    ? { funding: other, payout: request.quantity }
    : { funding: request.quantity, payout: other };
}

/** The instructions of the methods known at creation, their input checked against each method. */
function plannedInstructions(
  request: IntentToTrade,
  transactionId: string,
  sides: Sides,
  methods: Record<Direction, Method | undefined>,
  quantity: { funding: string; payout: string },
  now: number,
): InstructionInput[] {
  const instructions: InstructionInput[] = [];
  for (const direction of ['FUNDING', 'PAYOUT'] as const) {
    const method = methods[direction];
    if (method === undefined) continue;
    const field = settlementField(direction);
    const asset = direction === 'FUNDING' ? sides.funding : sides.payout;
    checkMethod(direction, method, asset, `${field}.method`);
    const required = requiredInputs(direction, method);
    const input = request[field]?.input_parameters;
    instructions.push({
      transactionId,
      direction,
      method,
      currency: asset.code,
      quantity: direction === 'FUNDING' ? quantity.funding : quantity.payout,
      setup: setupParameters(direction, method, asset),
      required,
      received: acceptInputs(required, {}, input, `${field}.input_parameters`),
      expiresAt: now + QUOTE_TTL_MS,
    });
  }
  return instructions;
}

/** Hands out the partner's next created_at: now, or one past the last one if that is not later. */
async function nextCreatedAt(db: Queryable, partnerId: number, now: number): Promise<number> {
  const { rows } = await db.query<{ last_created_at: string | number }>(
    `INSERT INTO qe_partner_clocks (partner_id, last_created_at) VALUES ($1, $2)
     ON CONFLICT (partner_id) DO UPDATE
       SET last_created_at = GREATEST(EXCLUDED.last_created_at, qe_partner_clocks.last_created_at + 1)
     RETURNING last_created_at`,
    [partnerId, now],
  );
  return Number(rows[0]?.last_created_at);
}

async function checkApiKey(
  db: Queryable,
  session: SessionRow,
  apiKey: string | undefined,
): Promise<void> {
  if (apiKey === undefined) return;
  const { rows } = await db.query(
    'SELECT 1 FROM partner_applications WHERE id = $1 AND public_api_key = $2',
    [session.partner_id, apiKey],
  );
  if (rows.length === 0) throw invalid('api_key', 'does_not_match_session');
}

export const intentToTrade: PartnerHandlerOf<'intentToTrade'> = async ({
  body,
  caller,
  db,
  now,
}) => {
  rejectNul(body);
  const request = body;
  if (caller.kind === 'session' && caller.sessionId !== request.session_id) {
    throw new NotAuthenticated('Path does not match: the session token is for another session_id');
  }
  const session = await findSession(db, request.session_id);
  if (!session) throw notFound('Session', 'session_id');
  const replayed = await replayClientRef(db, session, caller, request.client_ref);
  if (replayed) return replayed;

  await checkApiKey(db, session, request.api_key);
  if (request.terms_of_service && !request.terms_of_service.accepted) {
    throw invalid('terms_of_service.accepted', 'must_be_accepted');
  }
  const sides = await sidesOf(db, request);
  let intent: IntentRow | undefined;
  let methods: Record<Direction, Method | undefined> = {
    FUNDING: request.funding_settlement?.method,
    PAYOUT: request.payout_settlement?.method,
  };
  if (request.intent_id !== undefined) {
    const claim = await claimIntent(db, request.intent_id, session.partner_id, now, () =>
      replayClientRef(db, session, caller, request.client_ref),
    );
    if ('replayed' in claim) return claim.replayed;
    intent = claim.intent;
    methods = await applyIntent(db, request, sides, intent);
  }
  const quantity = await quantities(db, request, sides);

  const transactionId = randomUUID();
  const instructions = plannedInstructions(request, transactionId, sides, methods, quantity, now);
  const createdAt = await nextCreatedAt(db, session.partner_id, now);
  const inserted = await db.query(
    `INSERT INTO qe_transactions (id, partner_id, session_id, intent_id, client_ref, api_key, symbol,
       side, funding_currency, funding_quantity, payout_currency, payout_quantity, quote_id,
       quoted_at, status, partner_order_id, partner_ref, partner_tags, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::numeric, $11, $12::numeric, $13, $14,
       'SETTLEMENT_METHOD_REQUIRED', $15, $16, $17::jsonb, $18)
     ON CONFLICT (partner_id, client_ref) DO NOTHING
     RETURNING id`,
    [
      transactionId,
      session.partner_id,
      session.id,
      intent?.id ?? null,
      request.client_ref ?? null,
      request.api_key ?? null,
      request.symbol,
      request.side,
      sides.funding.code,
      quantity.funding,
      sides.payout.code,
      quantity.payout,
      request.quote_id ?? null,
      now,
      intent?.partner_order_id ?? null,
      intent?.partner_ref ?? null,
      intent?.partner_tags ? JSON.stringify(intent.partner_tags) : null,
      createdAt,
    ],
  );
  if (inserted.rows.length === 0) {
    // A concurrent call with the same client_ref committed first: answer as its retry.
    const concurrent = await replayClientRef(db, session, caller, request.client_ref);
    if (concurrent) return concurrent;
    throw new RetryLater('The transaction could not be created; retry');
  }
  for (const instruction of instructions) await putInstruction(db, instruction);
  await settle(db, transactionId, now);
  return reply(db, (await findTransaction(db, transactionId)) as TransactionRow);
};
