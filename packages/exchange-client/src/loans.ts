import type {
  Loan,
  LoanBid,
  LoanBidCreate,
  LoanBidList,
  LoanList,
  LoanUpdate,
  operations as Operations,
  operationTable,
} from '@exchange-kit/contract/exchange';
import type { PerCallOptions, WithDecimalInputs } from '@exchange-kit/core';
import type { Call } from './api.js';
import { everyRow } from './every-row.js';

export type {
  Loan,
  LoanBid,
  LoanBidList,
  LoanBidStatus,
  LoanList,
  LoanStatus,
  LoanUpdate,
} from '@exchange-kit/contract/exchange';

type Table = typeof operationTable;

/** A loan bid to place; `rate` and `quantity` may be numbers, decimal strings or Decimals. */
export type LoanBidInput = WithDecimalInputs<
  LoanBidCreate,
  Table['createLoanBid']['requestDecimals']
>['loan_bid'];
export type ListLoanBidsQuery = Operations['listLoanBids']['parameters']['query'];
export type ListLoansQuery = Operations['listLoans']['parameters']['query'];

/**
 * `client.loanBids`: lending a currency to margin traders. A live bid holds its quantity of
 * the caller's balance until it is closed. Each method names its operation where it calls it.
 */
export function loanBidCalls(call: Call) {
  return {
    /** Offers `quantity` of `currency` at the daily `rate`. */
    create(loanBid: LoanBidInput, options?: PerCallOptions): Promise<LoanBid> {
      const body = { loan_bid: loanBid } as LoanBidCreate;
      return call('createLoanBid', { body }, options);
    },
    /** One page of the caller's loan bids in a currency, newest first. */
    list(query: ListLoanBidsQuery, options?: PerCallOptions): Promise<LoanBidList> {
      return call('listLoanBids', { query }, options);
    },
    /** Every loan bid of the caller's in a currency, page after page as the loop asks. */
    iterate(query: Omit<ListLoanBidsQuery, 'page'>, options?: PerCallOptions) {
      return everyRow((page) => call('listLoanBids', { query: { ...query, page } }, options));
    },
    /** Closes a live bid; a closed one is a ValidationError naming its status (`status`). */
    close(id: number, options?: PerCallOptions): Promise<LoanBid> {
      return call('closeLoanBid', { path: { loan_bid_id: id } }, options);
    },
  };
}

/** `client.loans`: the caller's loans, lent or borrowed. */
export function loanCalls(call: Call) {
  return {
    /** One page of the caller's loans in a currency, newest first. */
    list(query: ListLoansQuery, options?: PerCallOptions): Promise<LoanList> {
      return call('listLoans', { query }, options);
    },
    /** Every loan of the caller's in a currency, page after page as the loop asks. */
    iterate(query: Omit<ListLoansQuery, 'page'>, options?: PerCallOptions) {
      return everyRow((page) => call('listLoans', { query: { ...query, page } }, options));
    },
    /**
     * The lender's choice of whether what is repaid of loan `id` is lent again; a loan the
     * caller borrowed is a ValidationError naming `fund_reloaned`.
     */
    update(id: number, loan: LoanUpdate['loan'], options?: PerCallOptions): Promise<Loan> {
      return call('updateLoan', { path: { loan_id: id }, body: { loan } }, options);
    },
  };
}
