import { Decimal } from 'decimal.js';
import type { Fault, ProxiedRequest, ProxiedResponse } from '../fault-proxy.js';
import { is, listedToTwoPlaces, pathname, type Row, status, withJson } from './proxied.js';

export const loanBidFaults: Fault[] = [
  {
    name: 'the reserved balance details leave out the loan bids',
    covers: 'LOAN-BID-RESERVES',
    response: (request, response) =>
      is(request, 'getReservedBalanceDetails') && response.status === 200
        ? withJson(response, (body) => ({
            ...(body as Row),
            details: ((body as Row).details as Row[]).filter(
              (detail) => detail.holder_type !== 'loan_bid',
            ),
          }))
        : response,
  },
  {
    name: 'the loan bids are listed with their rate cut to two places',
    covers: 'LOAN-BID-RESERVES',
    response: listedToTwoPlaces('listLoanBids', 'rate'),
  },
  {
    name: 'a closed loan bid is still listed live',
    covers: 'LOAN-BID-RESERVES',
    response: (request, response) =>
      is(request, 'listLoanBids') && response.status === 200
        ? { ...response, body: response.body.replaceAll('"status":"closed"', '"status":"live"') }
        : response,
  },
];

export const borrowingFaults: Fault[] = [
  {
    name: 'a margin trade borrows nothing: the loans list stays empty',
    covers: 'LOAN-MARGIN-BORROWS',
    response: (request, response) =>
      is(request, 'listLoans') && response.status === 200
        ? withJson(response, (body) => ({ ...(body as Row), models: [], total_pages: 0 }))
        : response,
  },
  {
    name: "a loan's borrower chooses for its lender: the refusal answers 200",
    covers: 'LOAN-BORROWER-CANNOT-CHOOSE',
    response: status(422, 200, 'updateLoan'),
  },
  {
    name: "a lender's choice not to lend a loan again is answered as lent again",
    covers: 'LOAN-LENDER-CHOOSES',
    testControl: true,
    response: (request, response) =>
      is(request, 'updateLoan') && response.status === 200
        ? withJson(response, (body) => ({ ...(body as Row), fund_reloaned: true }))
        : response,
  },
  {
    name: "a repaid loan takes its lender's choice: the refusal naming loan_id answers 200",
    covers: 'LOAN-REPAID-CANNOT-CHOOSE',
    testControl: true,
    response: (request, response) =>
      is(request, 'updateLoan') && response.status === 422 && response.body.includes('loan_id')
        ? { ...response, status: 200 }
        : response,
  },
  {
    name: "each charge counts a trade's interest from its loans' opening, the first day again",
    covers: 'LOAN-INTEREST-ACCRUES',
    testControl: true,
    response: (() => {
      // The clock's moves since the run began: from the second day on, one day too many.
      let days = 0;
      return (request: ProxiedRequest, response: ProxiedResponse) => {
        if (request.method === 'POST' && pathname(request) === '/test/clock') days++;
        return is(request, 'listOrderTrades') && response.status === 200 && days >= 2
          ? withJson(response, (body) =>
              (body as Row[]).map((trade) => ({
                ...trade,
                total_interest: new Decimal(String(trade.total_interest))
                  .plus(String(trade.daily_interest))
                  .toFixed(),
              })),
            )
          : response;
      };
    })(),
  },
  {
    name: 'interest is taken from the borrower and never paid to a bid lender',
    covers: 'LOAN-INTEREST-PAID-TO-LENDER',
    testControl: true,
    response: (request, response) =>
      is(request, 'listBalanceHistory') && response.status === 200
        ? withJson(response, (entries) =>
            (entries as Row[]).filter(
              (entry) =>
                entry.source_action !== 'interest' || new Decimal(String(entry.amount)).isNeg(),
            ),
          )
        : response,
  },
  {
    name: "a loan's interest never reaches its trade's total_interest",
    covers: 'LOAN-INTEREST-ACCRUES',
    testControl: true,
    response: (request, response) =>
      is(request, 'listOrderTrades') && response.status === 200
        ? withJson(response, (body) =>
            (body as Row[]).map((trade) => ({ ...trade, total_interest: '0' })),
          )
        : response,
  },
];
