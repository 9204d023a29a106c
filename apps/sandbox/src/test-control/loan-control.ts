import { lendFromBid, outstanding, repayLoan } from '../exchange/borrowing.js';
import { houseUserId } from '../exchange/ledger.js';
import { availableOf } from '../exchange/loan-bids.js';
import { NotFound, Refusal } from '../handling/errors.js';
import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import type { LoanBid } from '../state/records.js';
import { positiveDecimal, refused } from './control-answers.js';
import type { ControlCall } from './control-route.js';

/*
 * What traders who are not sandbox users do with a user's loan bid, which one user's
 * credentials cannot make happen (the house stands for those traders, as the demo ladder of the
 * loan book stands for lenders who are not sandbox users).
 */

const notLive = (bid: LoanBid) => new Refusal('loan_bid_id', `not_live:${bid.status}`);

/**
 * `POST /test/loan_bids/{loan_bid_id}/borrow` with `{"quantity": "0.1"}` borrows that much of
 * a live bid, as a margin trade would: a loan of the bid's user's, lent to the house.
 */
export async function borrowFromBid({
  sequencer,
  clock,
  params,
  body,
}: ControlCall<{ loan_bid_id: number }>): Promise<Serialized> {
  const asked = positiveDecimal(body.quantity);
  if (!asked) return refused('quantity', 'must_be_a_positive_decimal_string');
  const loan = await sequencer.run((journal) => {
    const bid = journal.exchange.loanBids.get(params.loan_bid_id);
    if (!bid) return undefined;
    if (bid.status !== 'live') throw notLive(bid);
    if (asked.gt(availableOf(bid))) throw new Refusal('quantity', 'more_than_the_bid_offers');
    // As a bid itself is held to it: no loan of a part of a unit the currency does not have.
    const precision = journal.exchange.currencies.get(bid.currency)?.assetsPrecision ?? 0;
    if (asked.decimalPlaces() > precision) throw new Refusal('quantity', 'too_many_decimals');
    const borrower = { positionId: null, userId: houseUserId };
    return lendFromBid(journal, bid, borrower, asked, clock.now());
  });
  if (!loan) {
    // Closed with nothing lent, and let go of: the store's copy is refused as a held one is.
    const stored = await sequencer.read((history) => history.loanBid(params.loan_bid_id));
    throw stored ? notLive(stored) : new NotFound('Loan bid not found');
  }
  const quantity = asked.toFixed();
  return uncachedJson(200, { loan_id: loan.id, loan_bid_id: loan.bidId, quantity });
}

/**
 * `POST /test/loans/{loan_id}/repay` with `{}` repays what is owed of such a loan, which goes
 * back to the bid or to the lender as the lender chose (`PUT /loans/{loan_id}`).
 */
export async function repayHouseLoan({
  sequencer,
  clock,
  params,
}: ControlCall<{ loan_id: number }>): Promise<Serialized> {
  const repaid = await sequencer.run((journal) => {
    const loan = journal.exchange.loans.get(params.loan_id);
    if (!loan || loan.positionId !== null) throw new NotFound('Loan not found');
    if (loan.status !== 'open') throw new Refusal('loan_id', `not_open:${loan.status}`);
    repayLoan(journal, loan, outstanding(loan), clock.now());
    return loan.id;
  });
  return uncachedJson(200, { loan_id: repaid, status: 'closed' });
}
