/** intent_to_trade: creates a transaction, with as much of its settlement as the request gives. */
import { randomUUID } from 'node:crypto';
import type {
  SettlementDirection as Direction,
  SettlementMethod as Method,
  operations,
} from '@exchange-kit/contract/partner';
import type { zIntentToTradeBody } from '@exchange-kit/contract/partner/schemas';
import type * as z from 'zod/mini';
import { NotAuthenticated } from '../handling/errors.js';
import { canonicalUuid } from '../handling/ids.js';
import type { DocumentedReply, PartnerHandlerOf } from '../handling/operation.js';
import type { Journal } from '../state/journal.js';
import type {
  Intent as IntentRow,
  PartnerState,
  Session,
  Transaction,
} from '../state/partner-state.js';
import { D } from '../state/records.js';
import { invalid, notFound } from './errors.js';
import { type InstructionInput, putInstruction, settle } from './instructions.js';
import { claimIntent } from './intents.js';
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
import { nextStepMessage, transactionView } from './transactions.js';

type IntentToTrade = z.infer<typeof zIntentToTradeBody>;

type TradeReply = DocumentedReply<operations['intentToTrade']>;

function reply(state: PartnerState, row: Transaction): TradeReply {
  const transaction = transactionView(state, row);
  return {
    status: 202,
    body: { success: true, message: nextStepMessage(transaction), payload: transaction },
  };
}

/**
 * A client_ref names one transaction of one session, so repeating the same request with it
 * answers with that transaction: creation can be retried safely. Any other request naming it
 * is refused without showing the transaction: from another session (a client_ref such as a
 * checkout id is easy to guess, and the answer would hand over a transaction to settle), or
 * from the same session for another order.
 */
function replayClientRef(
  state: PartnerState,
  session: Session,
  request: IntentToTrade,
): TradeReply | undefined {
  if (request.client_ref === undefined) return undefined;
  const existing = state.transactionByClientRef(session.partnerId, request.client_ref);
  if (!existing) return undefined;
  if (existing.sessionId !== session.id) {
    throw invalid(
      'client_ref',
      'taken',
      'client_ref already names a transaction of another session',
    );
  }
  const differs = differencesFrom(existing, request);
  if (differs.length > 0) {
    throw invalid(
      'client_ref',
      'taken',
      `client_ref already names a transaction of this session with another ${differs.join(', ')}`,
    );
  }
  return reply(state, existing);
}

/** What a repeated request asks for that the transaction its client_ref names does not hold. */
function differencesFrom(transaction: Transaction, request: IntentToTrade): string[] {
  const quantity =
    request.currency === transaction.fundingCurrency
      ? transaction.fundingQuantity
      : request.currency === transaction.payoutCurrency
        ? transaction.payoutQuantity
        : undefined;
  const checks: [string, boolean][] = [
    ['symbol', request.symbol === transaction.symbol],
    ['side', request.side === transaction.side],
    ['currency', quantity !== undefined],
    ['quantity', quantity === undefined || new D(request.quantity).eq(quantity)],
    ['intent_id', (canonicalUuid(request.intent_id) ?? null) === transaction.intentId],
  ];
  return checks.filter(([, same]) => !same).map(([field]) => field);
}

interface Sides {
  funding: Asset;
  payout: Asset;
}

/** Buying the base pays in the quote currency; selling it pays it in. */
function sidesOf(state: PartnerState, request: IntentToTrade): Sides {
  const [base = '', quote = ''] = request.symbol.split('/');
  const baseAsset = requireAsset(state, base, 'symbol');
  const quoteAsset = requireAsset(state, quote, 'symbol');
  if (!hasPrice(state, base, quote)) {
    throw invalid('symbol', 'unsupported_symbol', `${request.symbol} is not traded`);
  }
  if (request.currency !== base && request.currency !== quote) {
    throw invalid('currency', 'not_in_symbol', `currency must be ${base} or ${quote}`);
  }
  return request.side === 'buy'
    ? { funding: quoteAsset, payout: baseAsset }
    : { funding: baseAsset, payout: quoteAsset };
}

/** The intent's fixed economics bind the request: same currencies, quantity and methods. */
function applyIntent(
  request: IntentToTrade,
  sides: Sides,
  intent: IntentRow,
): Record<Direction, Method | undefined> {
  if (intent.payoutCurrency !== sides.payout.code) {
    throw invalid(
      'symbol',
      'does_not_match_intent',
      `The intent pays out ${intent.payoutCurrency}`,
    );
  }
  if (intent.fundingCurrency !== null && intent.fundingCurrency !== sides.funding.code) {
    throw invalid(
      'symbol',
      'does_not_match_intent',
      `The intent is funded in ${intent.fundingCurrency}`,
    );
  }
  const fixed =
    intent.payoutQuantity !== null
      ? { currency: intent.payoutCurrency, quantity: intent.payoutQuantity }
      : { currency: intent.fundingCurrency, quantity: intent.fundingQuantity ?? '0' };
  if (request.currency !== fixed.currency) {
    throw invalid(
      'currency',
      'does_not_match_intent',
      `The intent fixes a quantity of ${fixed.currency}`,
    );
  }
  if (!new D(request.quantity).eq(fixed.quantity)) {
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
    FUNDING: method('FUNDING', intent.fundingMethod),
    PAYOUT: method('PAYOUT', intent.payoutMethod),
  };
}

/**
 * The quantity of the other side, priced now from a snapshot quote. The sandbox has no quote
 * service of its own to check a `quote_id` against, so a `quantity_2` given with a quote must
 * be what its own quote gives: a price the user names is never taken.
 */
function quantities(
  state: PartnerState,
  request: IntentToTrade,
  sides: Sides,
): { funding: string; payout: string } {
  const givenPayout = request.currency === sides.payout.code;
  const [given, otherSide] = givenPayout
    ? [sides.payout, sides.funding]
    : [sides.funding, sides.payout];
  checkQuantity(request.quantity, given, 'quantity');
  if (request.quantity_2 !== undefined) checkQuantity(request.quantity_2, otherSide, 'quantity_2');
  const quoted = givenPayout
    ? convert(state, request.quantity, sides.payout.code, sides.funding.code, 'up')
    : convert(state, request.quantity, sides.funding.code, sides.payout.code, 'down');
  if (quoted === undefined || !isPositive(quoted)) {
    throw invalid('quantity', 'too_small', 'quantity is too small to be quoted');
  }
  if (request.quantity_2 !== undefined && !new D(request.quantity_2).eq(quoted)) {
    throw invalid(
      'quantity_2',
      'does_not_match_quote',
      `quantity_2 must be ${quoted} ${otherSide.code}, the quote for ${request.quantity} ${given.code}`,
    );
  }
  // Written as the caller wrote it when it is the quote's own figure.
  const other = request.quantity_2 ?? quoted;
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
function nextCreatedAt(journal: Journal, partnerId: number, now: number): number {
  const clock = journal.partner.clocks.get(partnerId);
  if (!clock) return journal.add('partnerClock', { partnerId, lastCreatedAt: now }).lastCreatedAt;
  const ticking = journal.touch('partnerClock', clock);
  ticking.lastCreatedAt = Math.max(now, clock.lastCreatedAt + 1);
  return ticking.lastCreatedAt;
}

function checkApiKey(state: PartnerState, session: Session, apiKey: string | undefined): void {
  if (apiKey === undefined) return;
  if (state.applications.get(session.partnerId)?.publicApiKey !== apiKey) {
    throw invalid('api_key', 'does_not_match_session');
  }
}

export const intentToTrade: PartnerHandlerOf<'intentToTrade'> = ({
  body,
  caller,
  journal,
  now,
}) => {
  const request = body;
  const state = journal.partner;
  const sessionId = canonicalUuid(request.session_id);
  if (caller.kind === 'session' && caller.sessionId !== sessionId) {
    throw new NotAuthenticated('Path does not match: the session token is for another session_id');
  }
  const session = sessionId === undefined ? undefined : state.sessions.get(sessionId);
  if (!session) throw notFound('Session', 'session_id');
  const replayed = replayClientRef(state, session, request);
  if (replayed) return replayed;

  checkApiKey(state, session, request.api_key);
  if (request.terms_of_service && !request.terms_of_service.accepted) {
    throw invalid('terms_of_service.accepted', 'must_be_accepted');
  }
  const sides = sidesOf(state, request);
  let intent: IntentRow | undefined;
  let methods: Record<Direction, Method | undefined> = {
    FUNDING: request.funding_settlement?.method,
    PAYOUT: request.payout_settlement?.method,
  };
  if (request.intent_id !== undefined) {
    intent = claimIntent(journal, request.intent_id, session.partnerId, now);
    methods = applyIntent(request, sides, intent);
  }
  const quantity = quantities(state, request, sides);

  const transactionId = randomUUID();
  const instructions = plannedInstructions(request, transactionId, sides, methods, quantity, now);
  const transaction = journal.add('transaction', {
    id: transactionId,
    partnerId: session.partnerId,
    sessionId: session.id,
    intentId: intent?.id ?? null,
    clientRef: request.client_ref ?? null,
    apiKey: request.api_key ?? null,
    symbol: request.symbol,
    side: request.side,
    fundingCurrency: sides.funding.code,
    fundingQuantity: quantity.funding,
    payoutCurrency: sides.payout.code,
    payoutQuantity: quantity.payout,
    quoteId: request.quote_id ?? null,
    quotedAt: now,
    status: 'SETTLEMENT_METHOD_REQUIRED',
    partnerOrderId: intent?.partnerOrderId ?? null,
    partnerRef: intent?.partnerRef ?? null,
    partnerTags: intent?.partnerTags ?? null,
    createdAt: nextCreatedAt(journal, session.partnerId, now),
    pendingSince: null,
  });
  for (const instruction of instructions) putInstruction(journal, instruction);
  settle(journal, transactionId, now);
  return reply(state, transaction);
};
