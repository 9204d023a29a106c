import { NotFound, Refusal } from '../handling/errors.js';
import {
  type ExchangeHandlerOf,
  type Handlers,
  later,
  refusedFromHistory,
} from '../handling/operation.js';
import type { ExchangeState } from '../state/exchange-state.js';
import type { Journal } from '../state/journal.js';
import { D, type LoanBid } from '../state/records.js';
import { actingUser } from './caller.js';
import { currencyOfType, finerThan } from './currencies.js';
import { maxDecimalLength } from './decimal-input.js';
import { adjustReserved } from './ledger.js';
import { pageFrom } from './paging.js';

export function loanBidView(bid: LoanBid) {
  return {
    id: bid.id,
    bidask_type: 'limit' as const,
    quantity: bid.quantity.toFixed(),
    currency: bid.currency,
    side: 'bid' as const,
    filled_quantity: bid.lent.toFixed(),
    status: bid.status,
    rate: bid.rate.toFixed(),
    user_id: bid.userId,
  };
}

/** What `bid` offers and holds: its quantity but what is lent from it now. */
export const availableOf = (bid: LoanBid) => bid.quantity.minus(bid.lent);

/** Live bids of `currency`, every user's: what its loan book adds to the demo ladder. */
export function liveLoanBids(state: ExchangeState, currency: string): LoanBid[] {
  return [...state.loanBids.values()].filter(
    (bid) => bid.currency === currency && bid.status === 'live',
  );
}

/** A decimal of the body above zero and of a length a real one has, else refused naming `field`. */
function positive(field: string, text: string): D {
  if (text.length > maxDecimalLength) throw new Refusal(field, 'too_long');
  const value = new D(text);
  if (value.lte(0)) throw new Refusal(field, 'must_be_positive');
  return value;
}

/** The most a bid may ask a day (the spec's LoanBidFields): its interest accrues every day. */
const maxDailyRate = new D('0.07');

const createLoanBid: ExchangeHandlerOf<'createLoanBid'> = ({ journal, caller, body, now }) => {
  const asked = body.loan_bid;
  const currency = currencyOfType(journal, asked.currency, 'crypto');
  const rate = positive('rate', asked.rate);
  if (rate.gt(maxDailyRate)) throw new Refusal('rate', 'must_be_at_most_0.07');
  const quantity = positive('quantity', asked.quantity);
  if (finerThan(currency, quantity)) {
    throw new Refusal('quantity', 'too_many_decimals');
  }
  const bid: LoanBid = {
    id: journal.exchange.next.loanBid++,
    userId: actingUser(caller),
    currency: currency.code,
    rate,
    quantity,
    lent: new D(0),
    status: 'live',
    createdAt: now,
    updatedAt: now,
  };
  adjustReserved(journal, bid.userId, bid.currency, bid.quantity);
  journal.add('loanBid', bid);
  return { status: 200, body: loanBidView(bid) };
};

/**
 * `userId`'s live bid `id`, closed. Undefined when memory holds no bid by that id: a closed one
 * nothing is lent from lives in the store alone, and `refusedAsStored` answers for it.
 */
function closeOwn(journal: Journal, userId: number, id: number, now: number): LoanBid | undefined {
  const bid = journal.exchange.loanBids.get(id);
  if (!bid) return undefined;
  if (bid.userId !== userId) throw notFound();
  if (bid.status !== 'live') throw new Refusal('status', bid.status);
  const closed = journal.touch('loanBid', bid);
  closed.status = 'closed';
  closed.updatedAt = now;
  // What is lent comes back free when it is repaid.
  adjustReserved(journal, bid.userId, bid.currency, availableOf(bid).neg());
  return closed;
}

const notFound = () => new NotFound('Loan bid not found');

/** The refusal of closing a bid memory does not hold: closed already if the store holds it. */
const refusedAsStored = (userId: number, id: number) =>
  refusedFromHistory(
    (history) => history.loanBid(id),
    (bid) =>
      bid.userId === userId && bid.status !== 'live'
        ? new Refusal('status', bid.status)
        : undefined,
    notFound,
  );

const closeLoanBid: ExchangeHandlerOf<'closeLoanBid'> = ({ journal, caller, path, now }) => {
  const userId = actingUser(caller);
  const closed = closeOwn(journal, userId, path.loan_bid_id, now);
  if (!closed) return refusedAsStored(userId, path.loan_bid_id);
  return { status: 200, body: loanBidView(closed) };
};

/** A bid is history once closed with nothing lent: the list is read from it, paged there. */
const listLoanBids: ExchangeHandlerOf<'listLoanBids'> = ({ caller, query }) => {
  const userId = actingUser(caller);
  const { limit, page, currency } = query;
  return later(async (history) => {
    const found = await history.loanBids(userId, currency, (page - 1) * limit, limit);
    return { status: 200, body: pageFrom(found.total, found.rows.map(loanBidView), limit, page) };
  });
};

export const loanBidHandlers = { listLoanBids, createLoanBid, closeLoanBid } satisfies Handlers;
