import { Decimal } from 'decimal.js';
import type { OrderRef } from '../engine/adapter.js';
import {
  bodyOf,
  evidenceOf,
  expectStatus,
  failAt,
  type SpecClient,
  sameDecimal,
} from '../engine/context.js';
import { type RecordedCall, Skip } from '../engine/outcome.js';
import {
  callerUserId,
  daySeconds,
  expectDailyInterest,
  interestPaid,
  loansOf,
  sum,
} from './borrowing.js';
import { listedBid, reservedOf } from './loan-bids.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { filledMarginOrderOrSkip, type Row, tradeOpenedBy } from './trades.js';

const lowestFirst = 'LOAN-LOWEST-RATE-FIRST';
const closedLendsNothing = 'LOAN-CLOSED-BID-LENDS-NOTHING';
const ownNotLent = 'LOAN-OWN-BID-NOT-LENT';
const closedWhileLent = 'LOAN-BID-CLOSED-WHILE-LENT';
const borrowerPays = 'LOAN-BORROWER-PAYS-LENDER';
const covered = [lowestFirst, closedLendsNothing, ownNotLent, closedWhileLent, borrowerPays];

/** Lots of the margin buy: at leverage 2 or more it borrows at least two of them. */
const lots = 4;

const decimal = (value: unknown) => new Decimal(String(value));

/** The rate of each bid the scenario places, lowest first. */
interface Rates {
  /** The caller's own bid: the cheapest, never the caller's to borrow. */
  own: string;
  /** Another trader's bid, closed before the trade: it lends nothing. */
  closed: string;
  /** Another trader's bid of one lot: lent whole first. */
  cheap: string;
  /** Another trader's bid that lends the rest. */
  dear: string;
  /** Another trader's bid that the trade never reaches: it keeps that trader's funds held. */
  spare: string;
}

/**
 * Rates under every rate the loan book shows (and under 0.0001), so that no lender the book
 * offers is cheaper than the scenario's bids.
 */
async function ratesUnderTheBook(context: ScenarioContext, currency: string): Promise<Rates> {
  const book = await context.caller.call('getLoanBook', { path: { currency } });
  expectStatus(book, 200);
  const { bids, asks } = bodyOf(book);
  const shown = [...(Array.isArray(bids) ? bids : []), ...(Array.isArray(asks) ? asks : [])]
    .map((level) => decimal((level as unknown[])[0]))
    .filter((rate) => rate.gt(0));
  const floor = Decimal.min(new Decimal('0.0001'), ...shown);
  const at = (share: number) => floor.times(share).toSignificantDigits(6).toFixed();
  return { own: at(0.2), closed: at(0.4), cheap: at(0.6), dear: at(0.8), spare: at(0.9) };
}

/** What the scenario made, for its cleanup whatever stopped it. */
interface Made {
  bids: { trader: SpecClient; id: string }[];
  trades: string[];
}

/** A live loan bid of `trader`'s, remembered in `made`. */
async function placeBid(
  trader: SpecClient,
  made: Made,
  bid: { currency: string; rate: string; quantity: Decimal },
): Promise<string> {
  const { currency, rate, quantity } = bid;
  const created = await trader.call('createLoanBid', {
    body: { loan_bid: { currency, rate, quantity: quantity.toFixed() } },
  });
  expectStatus(created, 200, '200 with the loan bid, live');
  const id = String(bodyOf(created).id);
  made.bids.push({ trader, id });
  return id;
}

const closeBid = (trader: SpecClient, id: string) =>
  trader.call('closeLoanBid', { path: { loan_bid_id: id } });

/** The bids beside the trade, and the loans the trade took. */
interface Lent {
  currency: string;
  other: SpecClient;
  otherId: string;
  me: string;
  rates: Rates;
  bids: Record<keyof Rates, string>;
  lot: Decimal;
  /** The quantity of each bid but the cheap one. */
  whole: Decimal;
  trade: Row;
  /** What the trade borrows: its notional beyond its margin. */
  owed: Decimal;
  taken: Row[];
  loans: RecordedCall;
  /** Whether the dear bid was closed while it lent (LOAN-BID-CLOSED-WHILE-LENT). */
  dearClosed?: boolean;
}

/**
 * Another trader's bids under the loan book (one closed at once, a cheap one of a lot, a dear
 * one and a spare one) and the caller's own, cheapest of all; then a margin buy of the caller's
 * funded in the base currency, which borrows it. Undefined when no margin order filled (its
 * SKIPs are recorded).
 */
async function borrowBeside(context: ScenarioContext, made: Made): Promise<Lent | undefined> {
  const market = await context.market();
  const product = market.primary;
  if (!product.marginEnabled) throw new Skip('no product with margin trading');
  const currency = product.baseCurrency;
  const other = await context.anotherTrader();
  const me = await callerUserId(context);
  const otherId = await callerUserId(context, other);
  const rates = await ratesUnderTheBook(context, currency);
  const lot = new Decimal(product.quantity);
  const whole = lot.times(lots);
  const closed = await placeBid(other, made, { currency, rate: rates.closed, quantity: whole });
  expectStatus(await closeBid(other, closed), 200, '200 with the loan bid, closed');
  // The dear bid first: a server lending oldest first lends from it.
  const dear = await placeBid(other, made, { currency, rate: rates.dear, quantity: whole });
  const cheap = await placeBid(other, made, { currency, rate: rates.cheap, quantity: lot });
  const spare = await placeBid(other, made, { currency, rate: rates.spare, quantity: whole });
  const own = await placeBid(context.caller, made, { currency, rate: rates.own, quantity: whole });
  const before = new Set((await loansOf(context, currency)).loans.map((loan) => String(loan.id)));
  const order: OrderRef | undefined = await filledMarginOrderOrSkip(context, covered, {
    lots,
    fundingCurrency: currency,
  });
  if (!order) return undefined;
  const { trade } = await tradeOpenedBy(context, order);
  made.trades.push(String(trade.id));
  const owed = decimal(trade.open_quantity).minus(String(trade.margin_used));
  const { call, loans } = await loansOf(context, currency);
  const taken = loans.filter(
    (loan) => !before.has(String(loan.id)) && String(loan.borrower_id) === me,
  );
  return {
    currency,
    other,
    otherId,
    me,
    rates,
    bids: { own, closed, cheap, dear, spare },
    lot,
    whole,
    trade,
    owed,
    taken,
    loans: call,
  };
}

const atRate = (loans: Row[], rate: string) => loans.filter((loan) => sameDecimal(loan.rate, rate));
const quantityOf = (loans: Row[]) => sum(loans, (loan) => decimal(loan.quantity));

/** No loan of the trade is the caller's own, and the caller's bid lent nothing. */
async function checkOwnNotLent(context: ScenarioContext, lent: Lent): Promise<string> {
  const { currency, me, rates, bids, trade, taken, loans } = lent;
  const own = taken.find((loan) => String(loan.lender_id) === me);
  if (own) {
    failAt(
      `trade ${String(trade.id)} borrowed loan ${String(own.id)} (${String(own.quantity)} at ${String(own.rate)}) from the caller itself`,
      loans,
      `loans from other users' bids alone, though the caller's own bid at ${rates.own} is the cheapest`,
    );
  }
  const { listed, row } = await listedBid(context, currency, bids.own);
  if (!row || !decimal(row.filled_quantity).isZero()) {
    failAt(
      `the caller's own bid ${bids.own} reads ${JSON.stringify(row ?? null)} after its trade borrowed`,
      listed,
      'listed live with filled_quantity 0: nothing lent',
    );
  }
  return `the caller's own bid at ${rates.own}, the cheapest, lent nothing to its trade`;
}

/**
 * Nothing of the trade's loans came from the bid closed before it; once the dear bid is closed
 * while it lends, a second trade borrows nothing from it either.
 */
async function checkClosedLendsNothing(
  context: ScenarioContext,
  lent: Lent,
  made: Made,
): Promise<string> {
  const { currency, other, rates, bids, trade, taken, loans } = lent;
  const fromClosed = atRate(taken, rates.closed);
  if (fromClosed.length > 0) {
    failAt(
      `trade ${String(trade.id)} borrowed ${quantityOf(fromClosed).toFixed()} at ${rates.closed}, the rate of bid ${bids.closed}, closed before the trade`,
      loans,
      'nothing lent from a closed bid',
    );
  }
  const { listed, row } = await listedBid(context, currency, bids.closed, other);
  if (row !== undefined && (row.status !== 'closed' || !decimal(row.filled_quantity).isZero())) {
    failAt(
      `bid ${bids.closed}, closed before the trade, reads ${JSON.stringify(row)}`,
      listed,
      'closed, filled_quantity 0',
    );
  }
  const closedAtOnce = `bid ${bids.closed} at ${rates.closed}, closed, lent nothing though the cheapest of another trader's`;
  if (!lent.dearClosed) return closedAtOnce;
  const before = new Set((await loansOf(context, currency)).loans.map((loan) => String(loan.id)));
  const market = await context.market();
  const order = await context.adapter.placeFilledOrder(
    context.adapterContext,
    {
      product: market.primary,
      side: 'buy',
      tradingType: 'margin',
      clientOrderId: context.clientOrderId(),
      quantity: lent.lot.times(2).toFixed(),
      fundingCurrency: currency,
    },
    market,
  );
  const { trade: second } = await tradeOpenedBy(context, order);
  made.trades.push(String(second.id));
  const after = await loansOf(context, currency);
  const fromDear = atRate(
    after.loans.filter((loan) => !before.has(String(loan.id))),
    rates.dear,
  );
  if (fromDear.length > 0) {
    failAt(
      `trade ${String(second.id)} borrowed ${quantityOf(fromDear).toFixed()} at ${rates.dear}, the rate of bid ${bids.dear}, closed while it lent`,
      after.call,
      'nothing more lent from a closed bid, whatever it still lends',
    );
  }
  return `${closedAtOnce}; bid ${bids.dear}, closed while it lent, lent nothing to a second trade`;
}

/**
 * The cheap bid lent whole, the dear one the rest, nothing else; the trade's daily_interest is
 * at the bids' rates.
 */
async function checkLowestFirst(context: ScenarioContext, lent: Lent): Promise<string> {
  const { otherId, rates, lot, trade, owed, taken, loans } = lent;
  const fromOther = taken.filter((loan) => String(loan.lender_id) === otherId);
  const cheap = quantityOf(atRate(fromOther, rates.cheap));
  const dear = quantityOf(atRate(fromOther, rates.dear));
  const all = quantityOf(taken);
  const id = String(trade.id);
  // The notional is the open quantity: the margin_used shown may be cut to its last place.
  const near = (a: Decimal, b: Decimal) => a.minus(b).abs().lte(owed.times('1e-8'));
  if (!cheap.eq(lot) || !near(dear, owed.minus(lot)) || !near(all, owed)) {
    failAt(
      `trade ${id}, owing ${owed.toFixed()}, borrowed ${cheap.toFixed()} at ${rates.cheap}, ${dear.toFixed()} at ${rates.dear} and ${all.toFixed()} in all`,
      loans,
      `the bid at ${rates.cheap} lent whole (${lot.toFixed()}) before the one at ${rates.dear} lent the rest (${owed.minus(lot).toFixed()}), from user ${otherId}, nothing else`,
    );
  }
  await expectDailyInterest(context, trade, taken);
  return `trade ${id} borrowed ${lot.toFixed()} at ${rates.cheap} first, then ${dear.toFixed()} at ${rates.dear}`;
}

/**
 * The dear bid closed while it lends: its trader's reserved balance is down by what it did not
 * lend alone, and its loans stay open.
 */
async function checkClosedWhileLent(context: ScenarioContext, lent: Lent): Promise<string> {
  const { currency, other, rates, bids, whole, taken } = lent;
  const lentFromDear = quantityOf(atRate(taken, rates.dear));
  if (lentFromDear.isZero()) throw new Skip(`bid ${bids.dear} lent nothing to close it while lent`);
  const before = await reservedOf(context, currency, other);
  const closed = await closeBid(other, bids.dear);
  expectStatus(closed, 200, '200 with the loan bid, closed');
  lent.dearClosed = true;
  if (
    bodyOf(closed).status !== 'closed' ||
    !decimal(bodyOf(closed).filled_quantity).eq(lentFromDear)
  ) {
    failAt(
      `bid ${bids.dear}, closed, reads ${String(bodyOf(closed).status)} with filled_quantity ${String(bodyOf(closed).filled_quantity)}`,
      closed,
      `closed, with filled_quantity what it lent and is not yet repaid, ${lentFromDear.toFixed()}`,
    );
  }
  const after = await reservedOf(context, currency, other);
  const released = before.reserved.minus(after.reserved);
  const free = whole.minus(lentFromDear);
  if (!released.eq(free)) {
    failAt(
      `closing bid ${bids.dear} with ${lentFromDear.toFixed()} of its ${whole.toFixed()} lent released ${released.toFixed()} ${currency} of its trader's reserved balance`,
      after.read,
      `what it did not lend, ${free.toFixed()}: what is lent is out on loan`,
    );
  }
  const { call, loans } = await loansOf(context, currency);
  const stillOpen = atRate(
    loans.filter((loan) => taken.some((each) => String(each.id) === String(loan.id))),
    rates.dear,
  );
  const notOpen = stillOpen.find((loan) => loan.status !== 'open');
  if (stillOpen.length === 0 || notOpen) {
    failAt(
      `once bid ${bids.dear} closed, its loans read ${JSON.stringify(notOpen ?? stillOpen)}`,
      call,
      'open: closing a bid recalls nothing it lent',
    );
  }
  return `closing bid ${bids.dear} released the ${free.toFixed()} it did not lend; its loans stay open`;
}

/** A day on: the caller pays each loan's interest, and the other trader receives it. */
async function checkBorrowerPays(context: ScenarioContext, lent: Lent): Promise<string> {
  const { currency, other, otherId, taken } = lent;
  const fromOther = taken.filter((loan) => String(loan.lender_id) === otherId);
  if (fromOther.length === 0) throw new Skip(`the trade borrowed nothing from user ${otherId}`);
  await context.adapter.advanceClock(context.adapterContext, daySeconds);
  const paid = await interestPaid(context, currency, fromOther);
  const received = await interestPaid(context, currency, fromOther, other);
  for (const loan of fromOther) {
    const id = String(loan.id);
    const due = decimal(loan.quantity).times(String(loan.rate));
    const sides = [
      ['borrower (the caller)', paid, due.neg()],
      ['lender', received, due],
    ] as const;
    for (const [side, sums, expected] of sides) {
      const shown = sums.paid.get(id) ?? new Decimal(0);
      if (!shown.eq(expected)) {
        failAt(
          `a day on, the ${side}'s interest entries naming loan ${id} sum to ${shown.toFixed()}`,
          sums.ledger,
          `a day of its quantity times its rate, ${expected.toFixed()}`,
        );
      }
    }
  }
  return `a day of interest on ${fromOther.length} loan(s) went from the caller to user ${otherId}`;
}

/** Closes the trade, then every bid still live: what the scenario made is not left lending. */
async function cleanUp(context: ScenarioContext, made: Made): Promise<void> {
  for (const trade of made.trades) {
    await context.caller.call('closeTrade', { path: { trade_id: trade } });
  }
  for (const { trader, id } of made.bids) await closeBid(trader, id);
}

const lenders: Scenario = {
  name: "a margin trade of the caller's borrowing from another trader's loan bids",
  profile: 'loans',
  // It places a margin order and reads reserved balances, operations of the orders profile.
  requires: ['orders'],
  covers: covered,
  needs: [{ step: 'anotherTrader' }, { step: 'advanceClock' }],
  // Its rates are under every bid the loan book shows, and it moves the clock.
  exclusive: true,
  async run(context) {
    const made: Made = { bids: [], trades: [] };
    try {
      const lent = await borrowBeside(context, made);
      if (!lent) return;
      // In this order: a bid closed while it lends is one the closed bids' check tries too.
      const checks = [
        [ownNotLent, checkOwnNotLent],
        [lowestFirst, checkLowestFirst],
        [closedWhileLent, checkClosedWhileLent],
        [closedLendsNothing, checkClosedLendsNothing],
        [borrowerPays, checkBorrowerPays],
      ] as const;
      for (const [id, check] of checks) {
        await context.evidence.check(id, () => check(context, lent, made));
      }
    } catch (error) {
      // What went wrong before the trade borrowed is every requirement's outcome.
      for (const id of covered) context.evidence.record(evidenceOf(id, error));
    } finally {
      await cleanUp(context, made);
    }
  },
};

export const lenderScenarios: Scenario[] = [lenders];
