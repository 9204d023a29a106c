import type { ExchangeHandlerOf, Handlers } from '../handling/operation.js';
import type { Loan } from '../state/exchange-state.js';
import { chargeDueInterest } from './borrowing.js';
import { actingUser } from './caller.js';
import { pageOf } from './paging.js';

function loanView(loan: Loan, bidLive: boolean) {
  return {
    id: loan.id,
    quantity: loan.quantity.toFixed(),
    rate: loan.rate.toFixed(),
    created_at: Math.floor(loan.createdAt / 1000),
    lender_id: loan.lenderId,
    borrower_id: loan.borrowerId,
    status: loan.status,
    currency: loan.currency,
    fund_reloaned: bidLive,
  };
}

/**
 * The caller's loans of one currency, lent or borrowed (`borrowing.ts` makes them), newest
 * first; the interest they owe by now is charged first. `PUT /loans/{id}` is not served: a
 * repaid loan goes back to its bid while the bid is live, which `fund_reloaned` shows.
 */
const listLoans: ExchangeHandlerOf<'listLoans'> = ({ journal, caller, query, now }) => {
  const userId = actingUser(caller);
  const own = (loan: Loan) =>
    (loan.lenderId === userId || loan.borrowerId === userId) && loan.currency === query.currency;
  const { loans, loanBids } = journal.exchange;
  const rows = [...loans.values()].filter(own).sort((a, b) => b.id - a.id);
  chargeDueInterest(journal, now, rows);
  const view = (loan: Loan) =>
    loanView(loan, loan.bidId !== null && loanBids.get(loan.bidId)?.status === 'live');
  return { status: 200, body: pageOf(rows, query.limit, query.page, view) };
};

export const loanHandlers = { listLoans } satisfies Handlers;
