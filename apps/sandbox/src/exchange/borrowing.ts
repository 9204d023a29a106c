import type { ExchangeState } from '../state/exchange-state.js';
import type { Journal } from '../state/journal.js';
import { D, type Loan, type LoanBid, type Position } from '../state/records.js';
import { adjustReserved, houseUserId, marginOf, postEntry } from './ledger.js';
import { availableOf, liveLoanBids } from './loan-bids.js';

/** Interest is charged once per whole day of the sandbox's clock a loan is open. */
export const dayMs = 86_400_000;

/** The daily rate the house lends at, for what the live bids of a currency do not cover. */
export const houseLoanRate = new D('0.0005');

export const outstanding = (loan: Loan) => loan.quantity.minus(loan.repaid);

/** Every loan `position` took, open or repaid, oldest first. */
export const loansOf = (state: ExchangeState, position: Position) => state.loansOf(position.id);

const openLoansOf = (state: ExchangeState, position: Position) =>
  loansOf(state, position).filter((loan) => loan.status === 'open');

/** What the open ones of a position's `loans` charge per day now, in its funding currency. */
export const dailyInterest = (loans: readonly Loan[]) =>
  loans
    .filter((loan) => loan.status === 'open')
    .reduce((sum, loan) => sum.plus(outstanding(loan).times(loan.rate)), new D(0));

/** What a position's `loans` have charged so far. */
export const totalInterest = (loans: readonly Loan[]) =>
  loans.reduce((sum, loan) => sum.plus(loan.interest), new D(0));

const loanSource = (loan: Loan) => ({ type: 'Loan' as const, id: loan.id });

/**
 * Moves `amount` of a loan's principal from `from` to `to`. The funds lent go to the house,
 * the other side of every margin position, and come back from it when repaid; what the house
 * lends itself moves nowhere.
 */
function movePrincipal(
  journal: Journal,
  loan: Loan,
  move: { from: number; to: number; amount: D; action: 'loan' | 'repay'; now: number },
): void {
  if (loan.lenderId === houseUserId || move.amount.isZero()) return;
  const { currency } = loan;
  const { action: sourceAction, now } = move;
  const source = loanSource(loan);
  const post = (userId: number, amount: D) =>
    postEntry(journal, { userId, currency, amount, sourceAction, source, now });
  post(move.from, move.amount.neg());
  post(move.to, move.amount);
}

/**
 * The fill of `quantity` at `price` that opened or added to `position` borrows its notional
 * beyond its margin, in the position's funding currency: from other users' live loan bids of
 * that currency, lowest rate first (then oldest), and from the house for the rest.
 */
export function borrowForFill(
  journal: Journal,
  position: Position,
  fill: { quantity: D; price: D; inBase: boolean; now: number },
): void {
  const notional = fill.inBase ? fill.quantity : fill.quantity.times(fill.price);
  const margin = marginOf(fill.quantity, fill.price, position.leverageLevel, fill.inBase);
  let left = notional.minus(margin);
  const bids = liveLoanBids(journal.exchange, position.fundingCurrency)
    .filter((bid) => bid.userId !== position.userId && availableOf(bid).gt(0))
    .sort((a, b) => a.rate.comparedTo(b.rate) || a.id - b.id);
  const borrower = { positionId: position.id, userId: position.userId };
  for (const bid of bids) {
    if (left.lte(0)) return;
    const quantity = D.min(left, availableOf(bid));
    lendFromBid(journal, bid, borrower, quantity, fill.now);
    left = left.minus(quantity);
  }
  if (left.gt(0)) borrowFromHouse(journal, position, left, fill.now);
}

/**
 * Adds `quantity` to the open house loan of `position`, or opens it: a position borrows from
 * the house in one loan, however many fills it takes, so what it holds, charges and writes
 * does not grow with its fills. The fill charged what was due first, and the days go on from
 * the loan's first: principal added during a day is charged that whole day, as principal
 * repaid during one is charged none of it (see `chargeInterest`).
 */
function borrowFromHouse(journal: Journal, position: Position, quantity: D, now: number): void {
  const open = openLoansOf(journal.exchange, position).find(
    (loan) => loan.lenderId === houseUserId,
  );
  if (!open) {
    const house = { lenderId: houseUserId, bidId: null, rate: houseLoanRate };
    const borrower = { positionId: position.id, userId: position.userId };
    openLoan(journal, borrower, house, position.fundingCurrency, quantity, now);
    return;
  }
  const growing = journal.touch('loan', open);
  growing.quantity = open.quantity.plus(quantity);
  growing.updatedAt = now;
}

/**
 * `bid` lends `quantity` out of what it holds reserved to `borrower`: a position, or (with
 * `positionId` null) the traders who are not sandbox users, whom the house stands for.
 */
export function lendFromBid(
  journal: Journal,
  bid: LoanBid,
  borrower: { positionId: number | null; userId: number },
  quantity: D,
  now: number,
): Loan {
  const lending = journal.touch('loanBid', bid);
  lending.lent = bid.lent.plus(quantity);
  lending.updatedAt = now;
  adjustReserved(journal, bid.userId, bid.currency, quantity.neg());
  const lender = { lenderId: bid.userId, bidId: bid.id, rate: bid.rate };
  const loan = openLoan(journal, borrower, lender, bid.currency, quantity, now);
  movePrincipal(journal, loan, {
    from: bid.userId,
    to: houseUserId,
    amount: quantity,
    action: 'loan',
    now,
  });
  return loan;
}

function openLoan(
  journal: Journal,
  borrower: { positionId: number | null; userId: number },
  lender: { lenderId: number; bidId: number | null; rate: D },
  currency: string,
  quantity: D,
  now: number,
): Loan {
  return journal.add('loan', {
    id: journal.exchange.next.loan++,
    positionId: borrower.positionId,
    ...lender,
    borrowerId: borrower.userId,
    currency,
    ...journal.exchange.placeLoan(lender.lenderId, borrower.userId, currency),
    quantity,
    repaid: new D(0),
    interest: new D(0),
    chargedUntil: now,
    fundReloaned: true,
    status: 'open',
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * Repays the open loans of `position` in proportion to `closed` of the `openBefore` quantity
 * that was open, all of what is owed once nothing is.
 */
export function repayForClose(
  journal: Journal,
  position: Position,
  share: { closed: D; openBefore: D; now: number },
): void {
  const whole = share.closed.gte(share.openBefore);
  for (const loan of openLoansOf(journal.exchange, position)) {
    const owed = outstanding(loan);
    const paid = whole
      ? owed
      : owed.times(share.closed).div(share.openBefore).toDecimalPlaces(16, D.ROUND_DOWN);
    repayLoan(journal, loan, paid, share.now);
  }
}

/**
 * Repays `paid` of `loan`, which is closed once nothing is owed. What goes back to a live bid
 * is held and offered again, unless its lender chose otherwise.
 */
export function repayLoan(journal: Journal, loan: Loan, paid: D, now: number): void {
  const repaying = journal.touch('loan', loan);
  repaying.repaid = loan.repaid.plus(paid);
  if (outstanding(repaying).isZero()) repaying.status = 'closed';
  repaying.updatedAt = now;
  movePrincipal(journal, loan, {
    from: houseUserId,
    to: loan.lenderId,
    amount: paid,
    action: 'repay',
    now,
  });
  const bid = loan.bidId === null ? undefined : journal.exchange.loanBids.get(loan.bidId);
  if (bid) returnToBid(journal, loan, bid, paid, now);
}

/**
 * `paid` of `loan` comes back to the `bid` it was lent from: held and offered again while the
 * bid is live and the lender lends it again (`fund_reloaned`), taken off the bid's quantity
 * otherwise, free in the lender's balance. A bid left with nothing to offer or lend is closed.
 */
function returnToBid(journal: Journal, loan: Loan, bid: LoanBid, paid: D, now: number): void {
  const returning = journal.touch('loanBid', bid);
  returning.lent = bid.lent.minus(paid);
  if (bid.status !== 'live') return;
  if (loan.fundReloaned) {
    adjustReserved(journal, bid.userId, bid.currency, paid);
    return;
  }
  returning.quantity = bid.quantity.minus(paid);
  returning.updatedAt = now;
  if (returning.quantity.isZero()) returning.status = 'closed';
}

/**
 * Charges the whole days of interest `loan` owes by `now`, at its rate on what is not yet
 * repaid: the borrower pays out of the free balance, the lender is paid in full, and the house
 * stands for what the borrower's free balance does not cover, as it does for a loss beyond a
 * position's margin. Every change of what a loan owes charges the days due before it, so a day
 * is charged on what is owed at its end: a day's interest is known only once it is over, and
 * the sandbox keeps no record of what was owed within one.
 */
function chargeInterest(journal: Journal, loan: Loan, now: number): void {
  const days = Math.floor((now - loan.chargedUntil) / dayMs);
  if (loan.status !== 'open' || days <= 0) return;
  const due = outstanding(loan).times(loan.rate).times(days);
  const charging = journal.touch('loan', loan);
  charging.chargedUntil = loan.chargedUntil + days * dayMs;
  charging.interest = loan.interest.plus(due);
  charging.updatedAt = now;
  const account = journal.exchange.account(loan.borrowerId, loan.currency);
  const free = account ? D.max(account.balance.minus(account.reserved), 0) : new D(0);
  const paid = D.min(due, free);
  const source = loanSource(loan);
  const post = (userId: number, amount: D) => {
    if (amount.isZero()) return;
    postEntry(journal, {
      userId,
      currency: loan.currency,
      amount,
      sourceAction: 'interest',
      source,
      now,
    });
  };
  post(loan.borrowerId, paid.neg());
  if (loan.lenderId === houseUserId) {
    post(houseUserId, paid);
    return;
  }
  post(loan.lenderId, due);
  post(houseUserId, paid.minus(due));
}

/**
 * Charges what the open ones of `loans` (every loan, unless named) owe by `now`. Interest is
 * settled lazily, by the sandbox's clock: when a call changes or reads the position or the
 * loan, and when test control moves the clock.
 */
export function chargeDueInterest(
  journal: Journal,
  now: number,
  loans: Iterable<Loan> = journal.exchange.loans.values(),
): void {
  for (const loan of [...loans]) chargeInterest(journal, loan, now);
}
