import { Decimal } from 'decimal.js';
import type { Fault, ProxiedRequest, ProxiedResponse } from '../fault-proxy.js';
import {
  is,
  listedToTwoPlaces,
  parse,
  pathname,
  type Row,
  status,
  tradesRead,
  withJson,
  withoutQuery,
} from './proxied.js';

export const loanBidFaults: Fault[] = [
  {
    name: 'the loan bids are listed whatever currency is asked',
    covers: 'LOAN-BID-RESERVES',
    request: withoutQuery('listLoanBids', 'currency'),
  },
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

/** The ledger read with only the interest entries whose amount `kept` keeps. */
const interestListed =
  (kept: (amount: Decimal) => boolean) => (request: ProxiedRequest, response: ProxiedResponse) =>
    is(request, 'listBalanceHistory') && response.status === 200
      ? withJson(response, (entries) =>
          (entries as Row[]).filter(
            (entry) =>
              entry.source_action !== 'interest' || kept(new Decimal(String(entry.amount))),
          ),
        )
      : response;

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
    // What lenders receive is left out.
    response: interestListed((amount) => amount.isNeg()),
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

/** The loans of a page of `GET /loans`, rewritten. */
const loansListed = (rewrite: (loans: Row[]) => Row[]) =>
  function loansListed(request: ProxiedRequest, response: ProxiedResponse): ProxiedResponse {
    return is(request, 'listLoans') && response.status === 200
      ? withJson(response, (page) => ({
          ...(page as Row),
          models: rewrite((page as Row).models as Row[]),
        }))
      : response;
  };

/** Whether the two newest loans listed are one trade's, open and lent by one user at two rates. */
const oneTradesTwoLoans = (newest: Row | undefined, next: Row | undefined) =>
  newest !== undefined &&
  next !== undefined &&
  newest.status === 'open' &&
  next.status === 'open' &&
  newest.lender_id === next.lender_id &&
  newest.borrower_id === next.borrower_id &&
  !new Decimal(String(newest.rate)).eq(String(next.rate));

export const lenderFaults: Fault[] = [
  {
    name: 'the dearest bid lends first: a trade borrowing from two bids shows one loan at the dearer rate',
    covers: 'LOAN-LOWEST-RATE-FIRST',
    // The loans as listed no longer match what the server lent, closed and charged.
    alsoFails: ['LOAN-BID-CLOSED-WHILE-LENT', 'LOAN-BORROWER-PAYS-LENDER'],
    testControl: true,
    response: loansListed(([newest, next, ...older]) => {
      if (!newest || !next || !oneTradesTwoLoans(newest, next)) {
        return [newest, next, ...older].filter((loan) => loan !== undefined);
      }
      const [dear, cheap] = new Decimal(String(newest.rate)).gt(String(next.rate))
        ? [newest, next]
        : [next, newest];
      const quantity = new Decimal(String(dear.quantity)).plus(String(cheap.quantity));
      return [{ ...dear, quantity: quantity.toFixed() }, ...older];
    }),
  },
  {
    name: "a trade's daily_interest is shown at twice its loans' rates",
    covers: 'LOAN-LOWEST-RATE-FIRST',
    testControl: true,
    response: tradesRead((trade) => ({
      daily_interest: new Decimal(String(trade.daily_interest)).times(2).toFixed(),
    })),
  },
  {
    name: 'a closed loan bid still lends: closing one is answered but not done',
    covers: 'LOAN-CLOSED-BID-LENDS-NOTHING',
    // The closed bid, cheapest, lends what the cheap one should have.
    alsoFails: ['LOAN-LOWEST-RATE-FIRST'],
    testControl: true,
    ...(() => {
      const made = new Map<string, Row>();
      let answered = false;
      return {
        request: (request: ProxiedRequest): ProxiedRequest | ProxiedResponse => {
          if (answered || !is(request, 'closeLoanBid')) return request;
          const id = pathname(request).split('/')[2] ?? '';
          const bid = made.get(id);
          if (!bid) return request;
          answered = true;
          return {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ ...bid, status: 'closed' }),
          };
        },
        response: (request: ProxiedRequest, response: ProxiedResponse) => {
          if (is(request, 'createLoanBid') && response.status === 200) {
            const bid = parse(response.body) as Row;
            made.set(String(bid.id), bid);
          }
          return response;
        },
      };
    })(),
  },
  {
    name: "a trade borrows from its owner's own bid: its newest loan is lent by its borrower",
    covers: 'LOAN-OWN-BID-NOT-LENT',
    // That loan is no longer the other trader's.
    alsoFails: ['LOAN-LOWEST-RATE-FIRST'],
    testControl: true,
    response: loansListed(([newest, ...older]) =>
      newest?.status === 'open'
        ? [{ ...newest, lender_id: newest.borrower_id }, ...older]
        : [newest, ...older].filter((loan) => loan !== undefined),
    ),
  },
  {
    name: 'closing a bid part lent releases what it lent too',
    covers: 'LOAN-BID-CLOSED-WHILE-LENT',
    testControl: true,
    response: (() => {
      // What closed bids had lent, by currency: released again from every later read.
      const released = new Map<string, Decimal>();
      return (request: ProxiedRequest, response: ProxiedResponse) => {
        if (response.status !== 200) return response;
        if (is(request, 'closeLoanBid')) {
          const bid = parse(response.body) as Row;
          const currency = String(bid.currency);
          const lent = new Decimal(String(bid.filled_quantity));
          released.set(currency, (released.get(currency) ?? new Decimal(0)).plus(lent));
          return response;
        }
        if (!is(request, 'getReservedBalanceDetails')) return response;
        return withJson(response, (body) => {
          const details = body as Row;
          const lent = released.get(pathname(request).split('/')[2] ?? '');
          return lent
            ? {
                ...details,
                reserved_balance: new Decimal(String(details.reserved_balance))
                  .minus(lent)
                  .toFixed(),
              }
            : details;
        });
      };
    })(),
  },
  {
    name: 'the borrower pays no interest: only what lenders receive is posted',
    covers: 'LOAN-BORROWER-PAYS-LENDER',
    testControl: true,
    // What borrowers pay is left out.
    response: interestListed((amount) => !amount.isNeg()),
  },
];
