import { Decimal } from 'decimal.js';
import type { OrderRef } from '../engine/adapter.js';
import { bodyOf, expectStatus, failAt, fieldCodes, type SpecClient } from '../engine/context.js';
import { amountOf, naming } from './ledger.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { filledMarginOrderOrSkip, listOf, type Row, tradeOpenedBy } from './trades.js';

const borrows = 'LOAN-MARGIN-BORROWS';
const accrues = 'LOAN-INTEREST-ACCRUES';
const borrowerRefused = 'LOAN-BORROWER-CANNOT-CHOOSE';
const covered = [borrows, accrues, borrowerRefused];
export const daySeconds = 86_400;

const decimal = (value: unknown) => new Decimal(String(value));
export const sum = (rows: Row[], of: (row: Row) => Decimal) =>
  rows.reduce((total, row) => total.plus(of(row)), new Decimal(0));

/** The caller's loans of `currency` (or `trader`'s), lent or borrowed, and the call listing them. */
export async function loansOf(
  context: ScenarioContext,
  currency: string,
  trader: SpecClient = context.caller,
) {
  const call = await trader.call('listLoans', { query: { currency, limit: '1000' } });
  return { call, loans: listOf(call) };
}

/**
 * The id of the user the caller's token (or `trader`'s) acts for, as the loans name their
 * lender and borrower.
 */
export async function callerUserId(
  context: ScenarioContext,
  trader: SpecClient = context.caller,
): Promise<string> {
  const user = await trader.call('getUserContext', {});
  expectStatus(user, 200);
  return String(bodyOf(user).user_id);
}

/** The ids of the caller's loans in the product's two currencies, before the trade opens. */
async function loanIdsBefore(context: ScenarioContext, productId: string): Promise<Set<string>> {
  const read = await context.caller.call('getProduct', { path: { product_id: productId } });
  expectStatus(read, 200);
  const product = bodyOf(read);
  const ids = new Set<string>();
  for (const currency of [product.base_currency, product.quoted_currency]) {
    for (const loan of (await loansOf(context, String(currency))).loans) ids.add(String(loan.id));
  }
  return ids;
}

/** The loans `trade` took: new since `before`, borrowed by the caller, open, of its currency. */
async function checkBorrowed(
  context: ScenarioContext,
  trade: Row,
  before: Set<string>,
  baseCurrency: string,
): Promise<Row[]> {
  const me = await callerUserId(context);
  const currency = String(trade.funding_currency);
  const { call, loans } = await loansOf(context, currency);
  const taken = loans.filter((loan) => !before.has(String(loan.id)));
  const id = String(trade.id);
  const wrong = taken.find(
    (loan) =>
      String(loan.borrower_id) !== me || loan.status !== 'open' || loan.currency !== currency,
  );
  if (wrong) {
    failAt(
      `loan ${String(wrong.id)} made with trade ${id} is ${String(wrong.status)}, ${String(wrong.currency)}, borrowed by ${String(wrong.borrower_id)}`,
      call,
      `open, ${currency}, borrowed by user ${me}`,
    );
  }
  const open = decimal(trade.open_quantity);
  const notional = currency === baseCurrency ? open : open.times(String(trade.open_price));
  const owed = notional.minus(String(trade.margin_used));
  const lent = sum(taken, (loan) => decimal(loan.quantity));
  // The shown open price is cut to 8 places: a notional rebuilt from it may be a hair off.
  if (owed.lte(0) || lent.minus(owed).abs().gt(notional.times('1e-8'))) {
    failAt(
      `trade ${id} borrowed ${lent.toFixed()} ${currency} in ${taken.length} new loan(s)`,
      call,
      `its notional ${notional.toFixed()} less margin_used ${String(trade.margin_used)}`,
    );
  }
  await expectDailyInterest(context, trade, taken);
  return taken;
}

/** The trade's daily_interest is what `loans`, its loans, charge a day: quantity times rate. */
export async function expectDailyInterest(
  context: ScenarioContext,
  trade: Row,
  loans: Row[],
): Promise<void> {
  const daily = sum(loans, (loan) => decimal(loan.quantity).times(String(loan.rate)));
  if (!decimal(trade.daily_interest).eq(daily)) {
    const read = await context.caller.call('listTrades', { query: { status: 'open' } });
    failAt(
      `trade ${String(trade.id)} shows daily_interest ${String(trade.daily_interest)}`,
      read,
      `the sum of its loans' quantity times rate, ${daily.toFixed()}`,
    );
  }
}

/** The caller's interest entries (or `trader`'s) naming each of `loans`, summed, by loan id. */
export async function interestPaid(
  context: ScenarioContext,
  currency: string,
  loans: Row[],
  trader: SpecClient = context.caller,
) {
  const ledger = await trader.call('listBalanceHistory', {
    query: { currency, source_action: 'interest', limit: '1000' },
  });
  expectStatus(ledger, 200);
  const entries = (Array.isArray(ledger.json) ? ledger.json : []) as Row[];
  const paid = new Map(
    loans.map((loan) => [String(loan.id), amountOf(naming(entries, 'Loan', loan.id))]),
  );
  return { ledger, paid };
}

/**
 * A day on: each loan's interest in the ledger is its quantity times its rate, and the
 * trade's total_interest is up by its daily_interest. Half the trade closed (its loans repaid
 * in part), another day on: the day's interest is the daily_interest the trade shows now,
 * what is not yet repaid, and total_interest is up by it. A day is charged once.
 */
async function checkAccrues(
  context: ScenarioContext,
  order: OrderRef,
  trade: Row,
  loans: Row[],
): Promise<string> {
  const currency = String(trade.funding_currency);
  await context.adapter.advanceClock(context.adapterContext, daySeconds);
  const first = await interestPaid(context, currency, loans);
  for (const loan of loans) {
    const charged = first.paid.get(String(loan.id)) ?? decimal(0);
    const due = decimal(loan.quantity).times(String(loan.rate));
    if (!charged.eq(due.neg())) {
      failAt(
        `a day on, the caller's interest entries naming loan ${String(loan.id)} sum to ${charged.toFixed()}`,
        first.ledger,
        `a day of its quantity times its rate, ${due.neg().toFixed()}`,
      );
    }
  }
  const dayOne = decimal(trade.daily_interest);
  const { trade: afterDay } = await tradeOpenedBy(context, order);
  const half = decimal(afterDay.open_quantity).div(2);
  const closed = await context.caller.call('closeTrade', {
    path: { trade_id: String(trade.id) },
    body: { closed_quantity: half.toFixed() },
  });
  expectStatus(closed, 200);
  const dayTwo = decimal(bodyOf(closed).daily_interest);
  await context.adapter.advanceClock(context.adapterContext, daySeconds);
  const second = await interestPaid(context, currency, loans);
  const taken = sum(loans, (loan) =>
    (second.paid.get(String(loan.id)) ?? decimal(0)).minus(
      first.paid.get(String(loan.id)) ?? decimal(0),
    ),
  );
  if (!taken.eq(dayTwo.neg())) {
    failAt(
      `the day after half of trade ${String(trade.id)} was closed, its loans' interest entries sum to ${taken.toFixed()}`,
      second.ledger,
      `its daily_interest once closed in part, on what is not yet repaid: ${dayTwo.neg().toFixed()}`,
    );
  }
  const { trade: later, call } = await tradeOpenedBy(context, order);
  const gained = decimal(later.total_interest).minus(String(trade.total_interest));
  if (!gained.eq(dayOne.plus(dayTwo))) {
    failAt(
      `two days on, trade ${String(trade.id)} shows total_interest ${String(later.total_interest)}, ${String(trade.total_interest)} before`,
      call,
      `up by a day at ${dayOne.toFixed()} and a day at ${dayTwo.toFixed()}: ${dayOne.plus(dayTwo).toFixed()}`,
    );
  }
  return `two days on, trade ${String(trade.id)} paid ${gained.toFixed()} ${currency} on ${loans.length} loan(s): a day whole, a day half closed`;
}

/** The borrower's choice for `loan` is refused naming `fund_reloaned`, the loan unchanged. */
async function checkBorrowerRefused(
  context: ScenarioContext,
  trade: Row,
  loan: Row,
): Promise<string> {
  const id = String(loan.id);
  const refused = await context.caller.call('updateLoan', {
    path: { loan_id: id },
    body: { loan: { fund_reloaned: !loan.fund_reloaned } },
  });
  const documented = '422 {"errors": {"fund_reloaned": ["lender_only"]}}';
  expectStatus(refused, 422, documented);
  const named = fieldCodes(refused, 'fund_reloaned');
  if (!Array.isArray(named) || named[0] !== 'lender_only') {
    failAt(
      `the borrower's choice for loan ${id} is refused without naming the field`,
      refused,
      documented,
    );
  }
  const { call, loans } = await loansOf(context, String(trade.funding_currency));
  const now = loans.find((each) => String(each.id) === id);
  if (now?.fund_reloaned !== loan.fund_reloaned) {
    failAt(
      `loan ${id} shows fund_reloaned ${String(now?.fund_reloaned)} after its borrower's refused choice`,
      call,
      `fund_reloaned ${String(loan.fund_reloaned)}, as before`,
    );
  }
  return `the borrower's choice for loan ${id} was refused naming fund_reloaned`;
}

async function checkRepaid(context: ScenarioContext, trade: Row, loans: Row[]): Promise<string> {
  const { call, loans: after } = await loansOf(context, String(trade.funding_currency));
  for (const loan of loans) {
    const now = after.find((each) => String(each.id) === String(loan.id));
    if (now?.status !== 'closed') {
      failAt(
        `loan ${String(loan.id)} is ${String(now?.status)} with trade ${String(trade.id)} closed`,
        call,
        'closed once the trade is',
      );
    }
  }
  return `trade ${String(trade.id)} borrowed ${loans.length} loan(s), closed with it`;
}

const borrowing: Scenario = {
  name: 'a margin trade borrowing its notional beyond its margin, and paying interest',
  profile: 'loans',
  // It opens a margin trade, with the operations of the orders profile.
  requires: ['orders'],
  covers: covered,
  needs: [{ step: 'advanceClock' }],
  // It tells its loans by those that were not there before, and moves the clock.
  exclusive: true,
  async run(context) {
    const market = await context.market();
    const before = market.primary.marginEnabled
      ? await loanIdsBefore(context, market.primary.id)
      : new Set<string>();
    // Two of the smallest quantity: half of it is a close the exchange takes.
    const order = await filledMarginOrderOrSkip(context, covered, { lots: 2 });
    if (!order) return;
    const { trade } = await tradeOpenedBy(context, order);
    let loans: Row[] = [];
    let told = false;
    try {
      await context.evidence.check(borrows, async () => {
        loans = await checkBorrowed(context, trade, before, market.primary.baseCurrency);
        told = true;
        return `trade ${String(trade.id)} borrowed in ${loans.length} loan(s)`;
      });
      const [first] = loans;
      if (first) {
        await context.evidence.check(borrowerRefused, () =>
          checkBorrowerRefused(context, trade, first),
        );
        await context.evidence.check(accrues, () => checkAccrues(context, order, trade, loans));
      } else {
        // Its loans are known only once LOAN-MARGIN-BORROWS held: broken, it tells none.
        const message = told
          ? 'the trade borrowed nothing to charge interest on or choose for'
          : `the trade's loans are not known: ${borrows} did not hold`;
        for (const requirementId of [accrues, borrowerRefused]) {
          context.evidence.record({ requirementId, outcome: 'skip', message });
        }
      }
    } finally {
      const closed = await context.caller.call('closeTrade', {
        path: { trade_id: String(trade.id) },
        body: {},
      });
      expectStatus(closed, 200);
    }
    if (loans.length > 0)
      await context.evidence.check(borrows, () => checkRepaid(context, trade, loans));
  },
};

export const borrowingScenarios: Scenario[] = [borrowing];
