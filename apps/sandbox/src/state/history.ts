import type {
  Deposit,
  Fill,
  LedgerEntry,
  Loan,
  LoanBid,
  Order,
  Position,
  Withdrawal,
} from './records.js';

/** Which of a user's orders a list shows: each filter given must match. */
export interface OrderFilter {
  productId?: number;
  /** Any of these statuses. */
  statuses?: readonly Order['status'][];
  tradingType?: Order['tradingType'];
  fundingCurrency?: string;
}

/** Which of a user's ledger entries a read shows: each filter given must match. */
export interface EntryFilter {
  currency?: string;
  sourceAction?: LedgerEntry['sourceAction'];
  /** Made at or after, in ms. */
  fromMs?: number;
  /** Made at or before, in ms. */
  toMs?: number;
}

/** Which of a user's trades (margin positions) a list shows: each filter given must match. */
export interface TradeFilter {
  status?: Position['status'];
  side?: Position['side'];
  productId?: number;
  fundingCurrency?: string;
  tradingType?: Position['tradingType'];
}

/** Which of a user's withdrawals a list shows: those of `kind`, and each other filter given. */
export interface WithdrawalFilter {
  kind: Withdrawal['kind'];
  currency?: string;
  state?: Withdrawal['state'];
}

/** A position with the loans it took, oldest first: what a trade shows. */
export interface HeldTrade {
  position: Position;
  loans: Loan[];
}

/** Where an order is named: `/orders/{order_id}` or `/orders/client:{client_order_id}`. */
export type OrderKey = { id: string } | { clientOrderId: string };

/** A fill of one of a user's orders, with what of that order its owner is shown. */
export interface OwnFill {
  fill: Fill;
  order: Pick<Order, 'id' | 'side' | 'tradingType' | 'clientOrderId'>;
}

/** A page of rows, and how many rows the whole list has. */
export interface Page<Row> {
  rows: Row[];
  total: number;
}

/**
 * The reads of what only grows (closed orders, positions and loan bids, repaid loans, fills,
 * ledger entries, withdrawals ended and deposits): answered by the store, paged and indexed, so that memory holds what the rules
 * decide on and no history. A store that keeps nothing answers them from memory instead
 * (`memoryHistory`). Each sees every call decided before it was asked.
 */
export interface HistoryReads {
  /**
   * The reads `work` makes, all of one moment: none sees a row stored after another has read.
   * A page and its total, or orders and their fills, read apart may each see a different
   * moment while calls are stored.
   */
  together<T>(work: (history: HistoryReads) => Promise<T>): Promise<T>;
  /** How many fills a product has had. */
  countProductFills(productId: number): Promise<number>;
  /** `userId`'s orders that `filter` picks, newest first: `limit` of them after `offset`. */
  orders(userId: number, filter: OrderFilter, offset: number, limit: number): Promise<Page<Order>>;
  /** One of `userId`'s orders, in any state. */
  order(userId: number, key: OrderKey): Promise<Order | undefined>;
  /** `limit` of a product's fills, newest first, after skipping `offset`. */
  productFills(productId: number, offset: number, limit: number): Promise<Fill[]>;
  /**
   * A product's fills made at or after `fromSecond` (Unix seconds), oldest first: `limit` of
   * them, and then the rest of the last one's second, so that a caller who asks again from
   * the next second misses none.
   */
  productFillsSince(productId: number, fromSecond: number, limit: number): Promise<Fill[]>;
  /** The fills of one order, oldest first. */
  fillsOfOrder(order: Pick<Order, 'id' | 'productId'>): Promise<Fill[]>;
  /**
   * The fills of `userId`'s orders on a product, newest first, `limit` after `offset`: a fill
   * between two orders of the user's is there once for each, the taker's first.
   */
  ownFills(
    userId: number,
    productId: number,
    offset: number,
    limit: number,
  ): Promise<Page<OwnFill>>;
  /** Every fill of `userId`'s orders made at or after `fromMs`, on any product. */
  ownFillsSince(userId: number, fromMs: number): Promise<OwnFill[]>;
  /** `userId`'s ledger entries that `filter` picks, newest first: `limit` after `offset`. */
  entries(
    userId: number,
    filter: EntryFilter,
    offset: number,
    limit: number,
  ): Promise<LedgerEntry[]>;
  /** How many of `userId`'s ledger entries `filter` picks: a count only a paged list pays. */
  countEntries(userId: number, filter: EntryFilter): Promise<number>;
  /** `userId`'s trades that `filter` picks, newest first: `limit` of them after `offset`. */
  trades(
    userId: number,
    filter: TradeFilter,
    offset: number,
    limit: number,
  ): Promise<Page<HeldTrade>>;
  /** One of `userId`'s trades, open or closed. */
  trade(userId: number, id: number): Promise<HeldTrade | undefined>;
  /** The trades of `userId` that fills of order `orderId` opened, oldest first. */
  tradesOpenedBy(userId: number, orderId: number): Promise<HeldTrade[]>;
  /**
   * The loans `userId` lent or borrowed in `currency`, newest (last placed) first: `limit` after
   * `offset`.
   */
  loans(userId: number, currency: string, offset: number, limit: number): Promise<Page<Loan>>;
  /** One of the loans `userId` lent or borrowed, open or repaid. */
  loan(userId: number, id: number): Promise<Loan | undefined>;
  /** `userId`'s loan bids of `currency`, newest first: `limit` after `offset`. */
  loanBids(userId: number, currency: string, offset: number, limit: number): Promise<Page<LoanBid>>;
  /** The loan bid `id`, whoever's it is, live or closed: its caller decides who may see it. */
  loanBid(id: number): Promise<LoanBid | undefined>;
  /** `userId`'s withdrawals that `filter` picks, newest first: `limit` after `offset`. */
  withdrawals(
    userId: number,
    filter: WithdrawalFilter,
    offset: number,
    limit: number,
  ): Promise<Page<Withdrawal>>;
  /** The withdrawal `id`, whoever's it is, in any state: its mover decides who may see it. */
  withdrawal(id: number): Promise<Withdrawal | undefined>;
  /** `userId`'s deposits, of `currency` if given, newest first: `limit` after `offset`. */
  deposits(
    userId: number,
    currency: string | undefined,
    offset: number,
    limit: number,
  ): Promise<Page<Deposit>>;
}

/**
 * What a store that keeps history gives: its reads, and the orders memory may forget once
 * they are stored closed, read back by key when a call needs them to decide.
 */
export interface StoredHistory {
  reads: HistoryReads;
  /** The orders of `userId` that carry these client order ids, if the store holds them. */
  ordersByClientId(userId: number, clientOrderIds: readonly string[]): Promise<Order[]>;
}
