import { hasFlag } from '@exchange-kit/contract/state-tables';
import { BookSide } from './book-side.js';
import { ByUser, getOrCreate, KeyedLists } from './lists.js';
import type { ReachIndex } from './reach-index.js';
import {
  type Account,
  type ClockOffset,
  type Currency,
  D,
  type Deposit,
  type Fill,
  isOpen,
  type LedgerEntry,
  type LeverageSetting,
  type Loan,
  type LoanBid,
  type LoanBookLevel,
  type LoanLevel,
  type MarkPrice,
  type OAuthRequest,
  type Order,
  type OwnFill,
  type Position,
  type Product,
  type User,
  type Withdrawal,
} from './records.js';
import { TradedProduct } from './traded-product.js';

interface Book {
  buy: BookSide<Order>;
  sell: BookSide<Order>;
}

/** The ids memory hands out next. */
export interface Sequences {
  order: number;
  orderSequence: number;
  fill: number;
  account: number;
  entry: number;
  withdrawal: number;
  deposit: number;
  position: number;
  loanBid: number;
  loan: number;
}

/**
 * The exchange as it stands: every user and token, OAuth request, order, account and fill,
 * loaded from the store at start and kept in step with it (see SandboxState).
 */
export class ExchangeState {
  currencies = new Map<string, Currency>();
  products = new Map<number, Product>();
  users = new Map<number, User>();
  tokens = new Map<string, { userId: number; secret: string }>();
  oauthRequests = new Map<string, OAuthRequest>();
  readonly #oauthByPrivateId = new Map<string, OAuthRequest>();
  accounts = new Map<number, Map<string, Account>>();
  orders = new Map<number, Order>();
  readonly ordersByUser = new KeyedLists<number, Order>();
  clientOrderIds = new Map<string, Order>();
  /**
   * Each product's fills not yet stored, in the order they were made (all of them on a store
   * that keeps nothing); read through `HistoryReads`. What the rules decide on is `traded`.
   */
  readonly fillsByProduct = new KeyedLists<number, Fill>();
  /** What each product's fills leave for the rules: their count, and the last day of them. */
  traded = new Map<number, TradedProduct>();
  /**
   * The last stored fill of each order memory holds that has one: what a partly filled order
   * cancelled later names, its fills gone from memory.
   */
  lastStoredFill = new Map<number, number>();
  /** The positions memory holds: every open one, and those closed until their batch is stored. */
  readonly positions = new Map<number, Position>();
  readonly #positionsByUser = new ByUser<Position>();
  /** The orders that close each margin position, by its id: its take profit and stop loss. */
  readonly #exitsByPosition = new KeyedLists<number, Order>();
  /**
   * Each product's open positions by the mark prices that reach them, and the ids of those
   * changed since, themselves or their exits, whose prices are to be read again (see
   * closeAtMark). Derived, in memory alone: a start reads them all again.
   */
  readonly reach = new Map<number, ReachIndex>();
  readonly #uncheckedPositions = new Map<number, Set<number>>();
  /**
   * Each user's ledger entries not yet stored, oldest first (all of them on a store that keeps
   * nothing); read through `HistoryReads`.
   */
  readonly entriesByUser = new KeyedLists<number, LedgerEntry>();
  readonly withdrawals = new Map<number, Withdrawal>();
  readonly #withdrawalsByUser = new ByUser<Withdrawal>();
  readonly deposits = new Map<number, Deposit>();
  readonly #depositsByUser = new ByUser<Deposit>();
  loanBids = new Map<number, LoanBid>();
  loans = new Map<number, Loan>();
  /** Each position's loans, oldest first: what a fill or a close of it settles. */
  readonly #loansByPosition = new KeyedLists<number, Loan>();
  /** Each user's loans, lent or borrowed: what `GET /loans` reads, not every loan there is. */
  readonly #loansByUser = new KeyedLists<number, Loan>();
  /** Leverage settings by trading account id. */
  leverageSettings = new Map<number, LeverageSetting>();
  /** What test control has moved the sandbox's clock forward by (`TestClock`). */
  clockOffset: ClockOffset | undefined;
  loanBook = new Map<string, { bid: LoanLevel[]; ask: LoanLevel[] }>();
  books = new Map<number, Book>();
  /** Whether each order is in its book right now; the book is derived, never stored. */
  readonly resting = new WeakSet<Order>();
  /** Open conditional orders by product: what a trade there may trigger. Derived too. */
  readonly #waiting = new Map<number, Set<Order>>();
  next: Sequences = {
    order: 1,
    orderSequence: 1,
    fill: 1,
    account: 1,
    entry: 1,
    withdrawal: 1,
    deposit: 1,
    position: 1,
    loanBid: 1,
    loan: 1,
  };

  addOAuthRequest(request: OAuthRequest): void {
    this.oauthRequests.set(request.publicId, request);
    this.#oauthByPrivateId.set(request.privateId, request);
  }

  dropOAuthRequest(request: OAuthRequest): void {
    this.oauthRequests.delete(request.publicId);
    this.#oauthByPrivateId.delete(request.privateId);
  }

  oauthRequestByPrivateId(privateId: string): OAuthRequest | undefined {
    return this.#oauthByPrivateId.get(privateId);
  }

  addAccount(account: Account): void {
    getOrCreate(this.accounts, account.userId, () => new Map<string, Account>()).set(
      account.currency,
      account,
    );
  }

  account(userId: number, currency: string): Account | undefined {
    return this.accounts.get(userId)?.get(currency);
  }

  /** A user's account in `currency`, opened empty when the user has none yet. */
  openAccount(userId: number, currency: string, address: string): Account {
    const found = this.account(userId, currency);
    if (found) return found;
    const account = {
      id: this.next.account++,
      userId,
      currency,
      balance: new D(0),
      reserved: new D(0),
      address,
      entries: 0,
    };
    this.addAccount(account);
    return account;
  }

  /** Forgets an account opened by a call that was then refused. */
  dropAccount(account: Account): void {
    this.accounts.get(account.userId)?.delete(account.currency);
  }

  addOrder(order: Order): void {
    this.#index(order);
    this.rest(order);
  }

  /**
   * Adds the orders a store holds, then puts the open ones in their books with one sort per
   * side: resting each in turn moves every order behind it, which is quadratic in the size of
   * the book.
   */
  addStoredOrders(orders: Iterable<Order>): void {
    const sides = new Map<BookSide<Order>, Order[]>();
    for (const order of orders) {
      this.#index(order);
      if (!isOpen(order)) continue;
      if (order.conditional) this.rest(order);
      else
        getOrCreate(sides, this.book(order.productId)[order.side], (): Order[] => []).push(order);
    }
    for (const [side, resting] of sides) {
      side.insertAll(resting);
      for (const order of resting) this.resting.add(order);
    }
  }

  #index(order: Order): void {
    this.orders.set(order.id, order);
    this.ordersByUser.add(order.userId, order);
    if (order.clientOrderId !== null) {
      this.clientOrderIds.set(clientKey(order.userId, order.clientOrderId), order);
    }
    if (order.unwoundTradeId !== null && order.tradingType !== 'spot') {
      this.#exitsByPosition.add(order.unwoundTradeId, order);
    }
  }

  /** Notes that position `positionId` of `productId`, or one of its exits, changed. */
  uncheck(productId: number, positionId: number): void {
    getOrCreate(this.#uncheckedPositions, productId, () => new Set<number>()).add(positionId);
  }

  /** The ids of `productId`'s positions noted since this was last asked, and forgets them. */
  takeUnchecked(productId: number): Iterable<number> {
    const ids = this.#uncheckedPositions.get(productId) ?? [];
    this.#uncheckedPositions.delete(productId);
    return ids;
  }

  /** The orders, open or not, that memory holds to close the margin position `positionId`. */
  exitsOf(positionId: number): readonly Order[] {
    return this.#exitsByPosition.of(positionId);
  }

  /** Forgets an order placed by a call that was then refused. */
  dropOrder(order: Order): void {
    this.unrest(order);
    this.orders.delete(order.id);
    this.lastStoredFill.delete(order.id);
    this.ordersByUser.drop(order.userId, order);
    if (order.clientOrderId !== null) {
      this.clientOrderIds.delete(clientKey(order.userId, order.clientOrderId));
    }
    if (order.unwoundTradeId !== null) this.#exitsByPosition.drop(order.unwoundTradeId, order);
  }

  /**
   * Lets go of an order stored closed: the store answers for it from then on. Only the very
   * object memory holds is let go, so an order read again since stays.
   */
  forgetOrder(order: Order): void {
    if (this.orders.get(order.id) !== order) return;
    this.dropOrder(order);
  }

  orderByClientId(userId: number, clientOrderId: string): Order | undefined {
    return this.clientOrderIds.get(clientKey(userId, clientOrderId));
  }

  book(productId: number): Book {
    return getOrCreate(this.books, productId, () => ({
      buy: new BookSide(),
      sell: new BookSide(),
    }));
  }

  /**
   * Puts an open order where it now belongs: in its book, where its price and age place it,
   * or among the product's waiting orders when it is conditional.
   */
  rest(order: Order): void {
    if (!isOpen(order)) return;
    if (order.conditional) {
      getOrCreate(this.#waiting, order.productId, () => new Set<Order>()).add(order);
      return;
    }
    if (this.resting.has(order)) return;
    this.book(order.productId)[order.side].insert(order);
    this.resting.add(order);
  }

  unrest(order: Order): void {
    this.#waiting.get(order.productId)?.delete(order);
    if (!this.resting.has(order)) return;
    this.book(order.productId)[order.side].remove(order);
    this.resting.delete(order);
  }

  /** Takes many orders out of their books at once, as `unrest` takes each. */
  unrestAll(orders: readonly Order[]): void {
    const bySide = new Map<BookSide<Order>, Set<Order>>();
    for (const order of orders) {
      this.#waiting.get(order.productId)?.delete(order);
      if (!this.resting.delete(order)) continue;
      getOrCreate(bySide, this.book(order.productId)[order.side], () => new Set<Order>()).add(
        order,
      );
    }
    for (const [side, taken] of bySide) side.removeAll(taken);
  }

  /** The open conditional orders of `productId`, oldest first. */
  waiting(productId: number): Order[] {
    return [...(this.#waiting.get(productId) ?? [])].sort((a, b) => a.id - b.id);
  }

  addLoan(loan: Loan): void {
    this.loans.set(loan.id, loan);
    for (const userId of partiesOf(loan)) {
      this.#loansByUser.add(userId, loan);
    }
    if (loan.positionId === null) return;
    this.#loansByPosition.add(loan.positionId, loan);
  }

  dropLoan(loan: Loan): void {
    this.loans.delete(loan.id);
    for (const userId of partiesOf(loan)) this.#loansByUser.drop(userId, loan);
    if (loan.positionId !== null) this.#loansByPosition.drop(loan.positionId, loan);
  }

  loansOf(positionId: number): readonly Loan[] {
    return this.#loansByPosition.of(positionId);
  }

  /** The loans `userId` lent or borrowed, in the order they were added. */
  loansOfUser(userId: number): readonly Loan[] {
    return this.#loansByUser.of(userId);
  }

  /**
   * Lets go of a loan bid stored closed with nothing lent from it, which no repayment comes
   * back to: the store answers for it from then on. As `forgetOrder`, only the very object.
   */
  forgetLoanBid(bid: LoanBid): void {
    if (this.loanBids.get(bid.id) !== bid || bid.status === 'live' || !bid.lent.isZero()) return;
    this.loanBids.delete(bid.id);
  }

  /** Puts a level in its side of the book, which is kept in the order of rates. */
  addLoanLevel(level: LoanBookLevel): void {
    const levels = this.loanBook.get(level.currency) ?? { bid: [], ask: [] };
    const side = levels[level.side].filter((kept) => kept.rate !== level.rate);
    side.push({ rate: level.rate, amount: level.amount });
    side.sort((a, b) => new D(a.rate).comparedTo(b.rate));
    levels[level.side] = side;
    this.loanBook.set(level.currency, levels);
  }

  dropLoanLevel(level: LoanBookLevel): void {
    const levels = this.loanBook.get(level.currency);
    if (!levels) return;
    levels[level.side] = levels[level.side].filter((kept) => kept.rate !== level.rate);
  }

  addPosition(position: Position): void {
    this.positions.set(position.id, position);
    this.#positionsByUser.add(position);
  }

  /** Forgets a position opened by a call that was then refused. */
  dropPosition(position: Position): void {
    this.positions.delete(position.id);
    this.#positionsByUser.drop(position);
  }

  /** The positions of `userId` memory holds, in the order they were added. */
  positionsOfUser(userId: number): readonly Position[] {
    return this.#positionsByUser.of(userId);
  }

  addWithdrawal(withdrawal: Withdrawal): void {
    this.withdrawals.set(withdrawal.id, withdrawal);
    this.#withdrawalsByUser.add(withdrawal);
  }

  /** Forgets a withdrawal asked for by a call that was then refused. */
  dropWithdrawal(withdrawal: Withdrawal): void {
    this.withdrawals.delete(withdrawal.id);
    this.#withdrawalsByUser.drop(withdrawal);
  }

  /** The withdrawals of `userId` memory holds, in the order they were added. */
  withdrawalsOfUser(userId: number): readonly Withdrawal[] {
    return this.#withdrawalsByUser.of(userId);
  }

  /**
   * Lets go of a withdrawal stored ended, which holds nothing and moves no more: the store
   * answers for it from then on. As `forgetOrder`, only the very object memory holds.
   */
  forgetWithdrawal(withdrawal: Withdrawal): void {
    if (this.withdrawals.get(withdrawal.id) !== withdrawal) return;
    if (!hasFlag('withdrawal', withdrawal.state, 'terminal')) return;
    this.dropWithdrawal(withdrawal);
  }

  addDeposit(deposit: Deposit): void {
    this.deposits.set(deposit.id, deposit);
    this.#depositsByUser.add(deposit);
  }

  /** Forgets a deposit made by a call that was then refused. */
  dropDeposit(deposit: Deposit): void {
    this.deposits.delete(deposit.id);
    this.#depositsByUser.drop(deposit);
  }

  /** The deposits of `userId` memory holds, in the order they were added. */
  depositsOfUser(userId: number): readonly Deposit[] {
    return this.#depositsByUser.of(userId);
  }

  /**
   * Lets go of a deposit once stored: no rule reads one again, as none moves once credited.
   * As `forgetOrder`, only the very object memory holds.
   */
  forgetDeposit(deposit: Deposit): void {
    if (this.deposits.get(deposit.id) === deposit) this.dropDeposit(deposit);
  }

  /**
   * Lets go of a position stored closed, and of its loans, all repaid by then: the store
   * answers for them from then on. As `forgetOrder`, only the very object memory holds.
   */
  forgetPosition(position: Position): void {
    if (this.positions.get(position.id) !== position || position.status !== 'closed') return;
    const loans = this.loansOf(position.id);
    if (loans.some((loan) => loan.status === 'open')) return;
    for (const loan of [...loans]) this.dropLoan(loan);
    this.#loansByPosition.delete(position.id);
    this.dropPosition(position);
  }

  /** The price of the product's last fill: what stops and trailing stops are measured by. */
  lastPrice(productId: number): D | undefined {
    return this.traded.get(productId)?.last?.price;
  }

  /** The product's fills made and kept track of: see TradedProduct. */
  tradedProduct(productId: number): TradedProduct {
    return getOrCreate(this.traded, productId, () => new TradedProduct());
  }

  /**
   * The product's mark price, which positions' P&L are valued at: the price test control set
   * (`POST /test/products/{product_id}/mark_price`) until the product's next fill, else the
   * last traded price. Stored, so a restart values positions as before it.
   */
  markPrice(productId: number): D | undefined {
    const mark = this.marks.get(productId);
    const fills = this.traded.get(productId)?.count ?? 0;
    return mark && mark.fills === fills ? mark.price : this.lastPrice(productId);
  }

  /** The marks test control set, by product (see `markPrice`). */
  readonly marks = new Map<number, MarkPrice>();

  addFill(fill: Fill): void {
    this.fillsByProduct.add(fill.productId, fill);
    this.tradedProduct(fill.productId).add(fill);
  }

  /**
   * How many own fills each user has of each product, by user and product: the place of the
   * last, so the next one's is known without asking the store.
   */
  readonly ownFillCounts = new Map<string, number>();

  /** Takes the place of `userId`'s next own fill of `productId`. */
  placeOwnFill(userId: number, productId: number): number {
    const key = ownFillKey(userId, productId);
    const place = (this.ownFillCounts.get(key) ?? 0) + 1;
    this.ownFillCounts.set(key, place);
    return place;
  }

  /**
   * How many positions each user has, open or closed: the place of their last, which the next
   * one follows.
   */
  readonly positionCounts = new Map<number, number>();

  /** Takes the place of `userId`'s next position. */
  placePosition(userId: number): number {
    const place = (this.positionCounts.get(userId) ?? 0) + 1;
    this.positionCounts.set(userId, place);
    return place;
  }

  /** Gives back the place of a position opened by a call that was then refused, latest first. */
  unplacePosition(position: Position): void {
    this.positionCounts.set(position.userId, position.place - 1);
  }

  /**
   * How many loans each user has of each currency, lent or borrowed, by `loanKey`: the place
   * of their last, which their next one follows.
   */
  readonly loanCounts = new Map<string, number>();

  /** Takes the places of a new loan of `currency` from `lenderId` to `borrowerId`. */
  placeLoan(
    lenderId: number,
    borrowerId: number,
    currency: string,
  ): Pick<Loan, 'lenderPlace' | 'borrowerPlace'> {
    const lenderPlace = this.#placeLoanOf(lenderId, currency);
    const borrowerPlace =
      borrowerId === lenderId ? lenderPlace : this.#placeLoanOf(borrowerId, currency);
    return { lenderPlace, borrowerPlace };
  }

  #placeLoanOf(userId: number, currency: string): number {
    const key = loanKey(userId, currency);
    const place = (this.loanCounts.get(key) ?? 0) + 1;
    this.loanCounts.set(key, place);
    return place;
  }

  /** Gives back the places of a loan opened by a call that was then refused, latest first. */
  unplaceLoan(loan: Loan): void {
    this.loanCounts.set(loanKey(loan.borrowerId, loan.currency), loan.borrowerPlace - 1);
    this.loanCounts.set(loanKey(loan.lenderId, loan.currency), loan.lenderPlace - 1);
  }

  /** Gives back the place of an own fill made by a call that was then refused, latest first. */
  unplaceOwnFill(ownFill: OwnFill): void {
    this.ownFillCounts.set(ownFillKey(ownFill.userId, ownFill.productId), ownFill.place - 1);
  }

  /** Takes back a fill made by a call that was then refused. */
  dropFill(fill: Fill): void {
    this.#unhold(fill);
    this.traded.get(fill.productId)?.drop(fill);
  }

  /**
   * Lets go of a stored fill: the store answers for it from then on, and the orders it filled
   * that memory still holds keep its id as their last fill's.
   */
  forgetFill(fill: Fill): void {
    this.#unhold(fill);
    this.traded.get(fill.productId)?.stored(fill);
    for (const id of [fill.takerOrderId, fill.makerOrderId]) {
      if (this.orders.has(id)) this.lastStoredFill.set(id, fill.id);
    }
  }

  #unhold(fill: Fill): void {
    this.fillsByProduct.drop(fill.productId, fill);
  }

  /** The id of the last fill of `order`, if it has one. */
  lastFillOf(order: Pick<Order, 'id' | 'productId'>): number | undefined {
    const fills = this.fillsByProduct.of(order.productId);
    for (let at = fills.length - 1; at >= 0; at--) {
      const fill = fills[at] as Fill;
      if (fill.takerOrderId === order.id || fill.makerOrderId === order.id) return fill.id;
    }
    return this.lastStoredFill.get(order.id);
  }

  addEntry(ledgerEntry: LedgerEntry): void {
    this.entriesByUser.add(ledgerEntry.userId, ledgerEntry);
  }

  dropEntry(ledgerEntry: LedgerEntry): void {
    this.entriesByUser.drop(ledgerEntry.userId, ledgerEntry);
  }
}

/** The key of a user's own fills of a product in `ownFillCounts`. */
export const ownFillKey = (userId: number, productId: number) => `${userId}:${productId}`;

/** The key of a user's loans of a currency in `loanCounts`. */
export const loanKey = (userId: number, currency: string) => `${userId}:${currency}`;

/** The place `loan` holds among the loans of `userId`, one of its parties. */
export const loanPlaceOf = (loan: Loan, userId: number) =>
  loan.lenderId === userId ? loan.lenderPlace : loan.borrowerPlace;

/** The users a loan is listed for: its lender and its borrower, once when they are one. */
const partiesOf = (loan: Loan): number[] =>
  loan.lenderId === loan.borrowerId ? [loan.lenderId] : [loan.lenderId, loan.borrowerId];

const clientKey = (userId: number, clientOrderId: string) => `${userId}\u0000${clientOrderId}`;
