import { NotFound, Refusal } from '../handling/errors.js';
import type { ExchangeHandlerOf, Handlers } from '../handling/operation.js';
import type { ExchangeState, Loan } from '../state/exchange-state.js';
import { chargeDueInterest } from './borrowing.js';
import { actingUser } from './caller.js';
import { pageOf } from './paging.js';

/** A loan as `GET /loans` lists it: lent again only from a bid that is live. */
function loanView(state: ExchangeState, loan: Loan) {
  const bidLive = loan.bidId !== null && state.loanBids.get(loan.bidId)?.status === 'live';
  return {
    id: loan.id,
    quantity: loan.quantity.toFixed(),
    rate: loan.rate.toFixed(),
    created_at: Math.floor(loan.createdAt / 1000),
    lender_id: loan.lenderId,
    borrower_id: loan.borrowerId,
    status: loan.status,
    currency: loan.currency,
    fund_reloaned: loan.fundReloaned && bidLive,
  };
}

/**
 * The caller's loans of one currency, lent or borrowed (`borrowing.ts` makes them), newest
 * first; the interest they owe by now is charged first.
 */
const listLoans: ExchangeHandlerOf<'listLoans'> = ({ journal, caller, query, now }) => {
  const rows = journal.exchange
    .loansOfUser(actingUser(caller))
    .filter((loan) => loan.currency === query.currency)
    .sort((a, b) => b.id - a.id);
  chargeDueInterest(journal, now, rows);
  const view = (loan: Loan) => loanView(journal.exchange, loan);
  return { status: 200, body: pageOf(rows, query.limit, query.page, view) };
};

/**
 * The lender's choice of whether what is repaid of a loan is lent again (`repayForClose`
 * honours it). The borrower sees the loan but has no say in it.
 */
const updateLoan: ExchangeHandlerOf<'updateLoan'> = ({ journal, caller, path, body, now }) => {
  const userId = actingUser(caller);
  const loan = journal.exchange.loans.get(path.loan_id);
  if (!loan || (loan.lenderId !== userId && loan.borrowerId !== userId)) {
    throw new NotFound('Loan not found');
  }
  if (loan.lenderId !== userId) throw new Refusal('loan.fund_reloaned', 'lender_only');
  const choosing = journal.touch('loan', loan);
  choosing.fundReloaned = body.loan.fund_reloaned;
  choosing.updatedAt = now;
  return { status: 200, body: loanView(journal.exchange, choosing) };
};

export const loanHandlers = { listLoans, updateLoan } satisfies Handlers;
