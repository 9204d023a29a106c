import { NotFound, Refusal } from '../handling/errors.js';
import {
  type ExchangeHandlerOf,
  type Handlers,
  later,
  refusedFromHistory,
} from '../handling/operation.js';
import type { ExchangeState } from '../state/exchange-state.js';
import type { Loan } from '../state/records.js';
import { chargeDueInterest } from './borrowing.js';
import { actingUser } from './caller.js';
import { pageFrom } from './paging.js';

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
 * first, read from history once the interest the open ones owe by now is charged.
 */
const listLoans: ExchangeHandlerOf<'listLoans'> = ({ journal, caller, query, now }) => {
  const userId = actingUser(caller);
  const { limit, page, currency } = query;
  chargeDueInterest(
    journal,
    now,
    journal.exchange.loansOfUser(userId).filter((loan) => loan.currency === currency),
  );
  return later(async (history, state) => {
    const found = await history.loans(userId, currency, (page - 1) * limit, limit);
    const models = found.rows.map((loan) => loanView(state, loan));
    return { status: 200, body: pageFrom(found.total, models, limit, page) };
  });
};

const notFound = () => new NotFound('Loan not found');

/** Why `userId` may not choose for `loan`, a loan they lent or borrowed, if they may not. */
function refusalFor(loan: Loan, userId: number): Refusal | undefined {
  if (loan.lenderId !== userId) return new Refusal('fund_reloaned', 'lender_only');
  // Nothing is left of it to repay, so nothing to lend again.
  if (loan.status !== 'open') return new Refusal('loan_id', 'not_open');
  return undefined;
}

/**
 * The lender's choice of whether what is repaid of a loan is lent again (`repayForClose`
 * honours it). The borrower sees the loan but has no say in it. A repaid loan whose position
 * is closed lives in the store alone, which answers for it.
 */
const updateLoan: ExchangeHandlerOf<'updateLoan'> = ({ journal, caller, path, body, now }) => {
  const userId = actingUser(caller);
  const loan = journal.exchange.loans.get(path.loan_id);
  if (!loan) {
    return refusedFromHistory(
      (history) => history.loan(userId, path.loan_id),
      (stored) => (stored.status !== 'open' ? refusalFor(stored, userId) : undefined),
      notFound,
    );
  }
  if (loan.lenderId !== userId && loan.borrowerId !== userId) throw notFound();
  const refusal = refusalFor(loan, userId);
  if (refusal) throw refusal;
  const choosing = journal.touch('loan', loan);
  choosing.fundReloaned = body.loan.fund_reloaned;
  choosing.updatedAt = now;
  return { status: 200, body: loanView(journal.exchange, choosing) };
};

export const loanHandlers = { listLoans, updateLoan } satisfies Handlers;
