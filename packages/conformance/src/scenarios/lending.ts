import { Decimal } from 'decimal.js';
import { bodyOf, expectStatus, failAt, fieldCodes } from '../engine/context.js';
import { callerUserId, daySeconds, interestPaid, loansOf } from './borrowing.js';
import { fundedCurrency, reservedOf } from './loan-bids.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { listOf, type Row } from './trades.js';

const chooses = 'LOAN-LENDER-CHOOSES';
const repaidRefused = 'LOAN-REPAID-CANNOT-CHOOSE';
const lenderPaid = 'LOAN-INTEREST-PAID-TO-LENDER';
// Small enough for any funded account, in whole units of every crypto currency's precision.
const offered = new Decimal('0.01');
const borrowed = new Decimal('0.004');
const rate = '0.0001';

/** The loan another trader took from the caller's bid: new since `before`, lent by the caller. */
async function loanTaken(context: ScenarioContext, currency: string, before: Set<string>) {
  const me = await callerUserId(context);
  const { call, loans } = await loansOf(context, currency);
  const taken = loans.find((loan) => !before.has(String(loan.id)));
  if (
    !taken ||
    String(taken.lender_id) !== me ||
    taken.status !== 'open' ||
    !new Decimal(String(taken.quantity)).eq(borrowed) ||
    taken.fund_reloaned !== true
  ) {
    failAt(
      `after another trader borrowed ${borrowed.toFixed()} ${currency} from the caller's bid, GET /loans lists ${JSON.stringify(taken ?? null)}`,
      call,
      `a new open loan of ${borrowed.toFixed()}, lent by user ${me}, fund_reloaned true`,
    );
  }
  return taken;
}

/**
 * A loan bid of the caller's, which another trader borrows from (the adapter's step): `use`
 * is handed the loan, and the bid is closed after, whatever `use` found.
 */
async function lentFromBid(
  context: ScenarioContext,
  use: (lent: { currency: string; bidId: string; loan: Row }) => Promise<string>,
): Promise<string> {
  const currency = await fundedCurrency(context);
  const before = new Set((await loansOf(context, currency)).loans.map((loan) => String(loan.id)));
  const created = await context.caller.call('createLoanBid', {
    body: { loan_bid: { currency, rate, quantity: offered.toFixed() } },
  });
  expectStatus(created, 200, '200 with the loan bid, live');
  const bidId = String(bodyOf(created).id);
  try {
    await context.adapter.borrowFromLoanBid(context.adapterContext, bidId, borrowed.toFixed());
    return await use({ currency, bidId, loan: await loanTaken(context, currency, before) });
  } finally {
    const closed = await context.caller.call('closeLoanBid', { path: { loan_bid_id: bidId } });
    expectStatus(closed, 200, '200 with the loan bid, closed');
  }
}

/**
 * The lender says a loan is not to be lent again; once it is repaid, the bid's quantity is down
 * by it and the caller's reserved balance is not up by it.
 */
const checkLenderChooses = (context: ScenarioContext): Promise<string> =>
  lentFromBid(context, async ({ currency, bidId, loan }) => {
    const id = String(loan.id);
    const chosen = await context.caller.call('updateLoan', {
      path: { loan_id: id },
      body: { loan: { fund_reloaned: false } },
    });
    expectStatus(chosen, 200, '200 with the loan, fund_reloaned false');
    if (bodyOf(chosen).fund_reloaned !== false || String(bodyOf(chosen).id) !== id) {
      failAt(
        `the lender's choice for loan ${id} answers otherwise`,
        chosen,
        `loan ${id}, fund_reloaned false`,
      );
    }
    const listed = await loansOf(context, currency);
    const now = listed.loans.find((each) => String(each.id) === id);
    if (now?.fund_reloaned !== false) {
      failAt(
        `loan ${id} is listed with fund_reloaned ${String(now?.fund_reloaned)}`,
        listed.call,
        'false, as the lender chose',
      );
    }
    const held = await reservedOf(context, currency);
    await context.adapter.repayLoan(context.adapterContext, id);
    const bids = await context.caller.call('listLoanBids', { query: { currency, limit: '1000' } });
    expectStatus(bids, 200);
    const bid = listOf(bids).find((each) => String(each.id) === bidId);
    const left = offered.minus(borrowed);
    if (
      !bid ||
      !new Decimal(String(bid.quantity)).eq(left) ||
      !new Decimal(String(bid.filled_quantity)).isZero()
    ) {
      failAt(
        `once loan ${id} was repaid, bid ${bidId} reads ${JSON.stringify(bid ?? null)}`,
        bids,
        `quantity ${left.toFixed()} (down by the loan, not lent again), filled_quantity 0`,
      );
    }
    const after = await reservedOf(context, currency);
    if (!after.reserved.eq(held.reserved)) {
      failAt(
        `${currency} reserved ${after.reserved.toFixed()} once loan ${id} was repaid, ${held.reserved.toFixed()} before`,
        after.read,
        'as before: what was repaid is free, not held for the bid',
      );
    }
    await context.evidence.check(repaidRefused, () => checkRepaidRefused(context, currency, id));
    return `loan ${id} not lent again: repaid, it left bid ${bidId} and came back free`;
  });

/** The lender's choice for a repaid loan is refused naming `loan_id`, the loan unchanged. */
async function checkRepaidRefused(
  context: ScenarioContext,
  currency: string,
  id: string,
): Promise<string> {
  const { loans: before } = await loansOf(context, currency);
  const refused = await context.caller.call('updateLoan', {
    path: { loan_id: id },
    body: { loan: { fund_reloaned: true } },
  });
  const documented = '422 {"errors": {"loan_id": ["not_open"]}}';
  expectStatus(refused, 422, documented);
  const named = fieldCodes(refused, 'loan_id');
  if (!Array.isArray(named) || named[0] !== 'not_open') {
    failAt(
      `the lender's choice for repaid loan ${id} is refused without naming loan_id`,
      refused,
      documented,
    );
  }
  const listed = await loansOf(context, currency);
  const was = JSON.stringify(before.find((each) => String(each.id) === id) ?? null);
  const now = JSON.stringify(listed.loans.find((each) => String(each.id) === id) ?? null);
  if (now !== was) {
    failAt(
      `repaid loan ${id} reads ${now} after a refused choice`,
      listed.call,
      `as before, ${was}`,
    );
  }
  return `the lender's choice for repaid loan ${id} was refused naming loan_id`;
}

const lending: Scenario = {
  name: "a loan's lender choosing that what is repaid is not lent again",
  profile: 'loans',
  // It reads the accounts and their reserved balance details, operations of the orders profile.
  requires: ['orders'],
  covers: [chooses, repaidRefused],
  needs: [
    // A loan is the caller's to choose for only once another trader borrowed from its bid.
    { step: 'borrowFromLoanBid', answers: ['updateLoan'] },
    { step: 'repayLoan' },
  ],
  // It reads the whole reserved balance of a currency, which orders beside it would move.
  exclusive: true,
  async run(context) {
    await context.evidence.check(chooses, () => checkLenderChooses(context));
    // The repaid loan is the one the lender's check made: without it, say why.
    const { all } = context.evidence;
    if (all.some((e) => e.requirementId === repaidRefused)) return;
    const before = all.findLast((e) => e.requirementId === chooses);
    context.evidence.record({
      requirementId: repaidRefused,
      outcome: before?.outcome === 'skip' ? 'skip' : 'error',
      message: `no loan was repaid: ${chooses} ${before?.outcome === 'skip' ? 'skipped' : 'stopped'} before one was (${before?.message ?? 'no outcome'})`,
    });
  },
};

/**
 * Another trader borrows from the caller's bid and the clock moves a day on: the caller's
 * interest entries naming the loan sum to its quantity times its rate, paid to it.
 */
const checkLenderPaid = (context: ScenarioContext): Promise<string> =>
  lentFromBid(context, async ({ currency, loan }) => {
    const loanId = String(loan.id);
    try {
      await context.adapter.advanceClock(context.adapterContext, daySeconds);
      const { ledger, paid } = await interestPaid(context, currency, [loan]);
      const due = borrowed.times(rate);
      const received = paid.get(loanId) ?? new Decimal(0);
      if (!received.eq(due)) {
        failAt(
          `a day after loan ${loanId} was taken from the caller's bid, the caller's interest entries naming it sum to ${received.toFixed()} ${currency}`,
          ledger,
          `a day of its quantity times its rate paid to its lender: ${due.toFixed()}`,
        );
      }
      return `loan ${loanId} paid its lender a day's interest, ${due.toFixed()} ${currency}`;
    } finally {
      await context.adapter.repayLoan(context.adapterContext, loanId);
    }
  });

const lenderInterest: Scenario = {
  name: "a loan from the caller's bid paying its lender a day's interest",
  profile: 'loans',
  requires: ['orders'],
  covers: [lenderPaid],
  needs: [{ step: 'borrowFromLoanBid' }, { step: 'advanceClock' }, { step: 'repayLoan' }],
  // It tells its loan by those that were not there before, and moves the clock.
  exclusive: true,
  run: (context) => context.evidence.check(lenderPaid, () => checkLenderPaid(context)).then(),
};

export const lendingScenarios: Scenario[] = [lending, lenderInterest];
