import type { components } from '@exchange-kit/contract/exchange';
import { hasFlag } from '@exchange-kit/contract/state-tables';
import { Decimal } from 'decimal.js';

// The exchange's records as memory holds them, one shape per kind, and what is read off a
// record alone. ExchangeState (exchange-state.ts) indexes them.

/**
 * Exact decimal arithmetic for amounts: enough significant digits that no product or sum of
 * two accepted amounts (at most 32 characters each) is ever rounded.
 */
export const D = Decimal.clone({ precision: 100, toExpNeg: -100, toExpPos: 100 });
export type D = InstanceType<typeof D>;

export interface User {
  readonly id: number;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly country: string;
  readonly currency: string;
  readonly language: string;
  readonly kycStatus: string;
  readonly appVendorId: number;
  readonly affiliateCode: string;
  readonly emailConfirmedAtS: number;
}

/** An API token of a user, as a record a call adds; memory keys it by `id`. */
export interface ApiTokenRecord {
  readonly id: string;
  readonly userId: number;
  readonly secret: string;
}

/** An application's request to act for a user, and the user's answer. */
export interface OAuthRequest {
  readonly publicId: string;
  readonly privateId: string;
  readonly appTokenId: string;
  readonly externalRef: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly approvedByUserId: number | null;
  readonly approvedAt: number | null;
  readonly deniedAt: number | null;
}

export interface Currency {
  readonly code: string;
  readonly name: string;
  readonly currencyType: 'crypto' | 'fiat';
  readonly symbol: string;
  readonly depositable: boolean;
  readonly withdrawable: boolean;
  readonly assetsPrecision: number;
  readonly minimumWithdrawal: D;
  readonly withdrawalFee: D;
  readonly minimumOrderQuantity: D;
  readonly exchangeRate: D;
}

export interface Product {
  readonly id: number;
  readonly productType: string;
  readonly code: string;
  readonly baseCurrency: string;
  readonly quotedCurrency: string;
  readonly takerFee: D;
  readonly makerFee: D;
  readonly tickSize: D;
  readonly disabled: boolean;
  readonly marginEnabled: boolean;
  readonly cfdEnabled: boolean;
  readonly perpetualEnabled: boolean;
  readonly perpetual: boolean;
}

export interface Account {
  readonly id: number;
  readonly userId: number;
  readonly currency: string;
  readonly balance: D;
  readonly reserved: D;
  readonly address: string;
  /**
   * How many ledger entries the account has: the place of its last among its user's entries
   * of its currency, so the next one's place is known without asking the store.
   */
  readonly entries: number;
}

export type OrderStatus = components['schemas']['OrderStatus'];

export interface Order {
  readonly id: number;
  readonly userId: number;
  readonly productId: number;
  readonly clientOrderId: string | null;
  readonly orderType: components['schemas']['OrderType'];
  readonly side: components['schemas']['Side'];
  readonly tradingType: components['schemas']['TradingType'];
  readonly quantity: D;
  readonly filledQuantity: D;
  readonly price: D;
  /** Sum of price * quantity over the fills, so the average price stays exact. */
  readonly filledValue: D;
  /**
   * What its fills have charged it in fees so far, all in one currency: the one `fillFee`
   * charges its side and trading type in.
   */
  readonly feeCharged: D;
  readonly status: OrderStatus;
  readonly leverageLevel: number;
  readonly fundingCurrency: string;
  readonly takeProfit: D | null;
  readonly stopLoss: D | null;
  /**
   * Waiting for the product's price to reach `price`, outside the book: a take profit or stop
   * loss on a position, or a stop or trailing stop order not yet triggered.
   */
  readonly conditional: boolean;
  /** The margin position this order opened with its first fill. */
  readonly tradeId: number | null;
  /** The trade a take profit or stop loss order closes: a margin position, or a spot fill. */
  readonly unwoundTradeId: number | null;
  /** How far a trailing stop's trigger follows the price: an amount, or a percentage of it. */
  readonly trailingStop: TrailingStop | null;
  /** What the order holds of its owner's funds right now, and in which currency. */
  readonly reservedAmount: D;
  readonly reservedCurrency: string;
  /** Time priority among orders at one price. */
  readonly sequence: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface TrailingStop {
  readonly type: 'fiat' | 'percentage';
  readonly value: D;
}

/**
 * A margin (or cfd, perpetual) position: opened by an order's fills, closed by its take
 * profit or stop loss. Its id is that of the fill that opened it, which is its trade id.
 */
export interface Position {
  readonly id: number;
  readonly userId: number;
  readonly productId: number;
  readonly tradingType: components['schemas']['TradingType'];
  readonly side: 'buy' | 'sell';
  readonly leverageLevel: number;
  readonly fundingCurrency: string;
  /** Opened in total, and sum of price * quantity over the opening fills. */
  readonly quantity: D;
  readonly openValue: D;
  /** Closed in total, and sum of price * quantity over the closing fills. */
  readonly closedQuantity: D;
  readonly closedValue: D;
  /**
   * What the closed part cost to open: each close takes its share of what the open part cost,
   * so the open part keeps its own average price when a fill adds to it after a close.
   */
  readonly closedCost: D;
  /** What the position holds of its owner's funding currency right now. */
  readonly margin: D;
  readonly realizedPnl: D;
  /** What the fills that closed part of it charged their orders in fees (`close_fee`). */
  readonly closeFee: D;
  readonly status: 'open' | 'closed';
  /** Its place among its user's positions, from 1, oldest first. */
  readonly place: number;
  /**
   * The order whose fill opened it: an order whose position closed while it rested opens
   * another with its next fill. Null in a store kept from before this was recorded.
   */
  readonly orderId: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * The leverage level a user set on a trading account (`PUT /trading_accounts/{id}`): what
 * their margin orders on the product take when they name none. Kept only once set.
 */
/** How far the sandbox's clock runs ahead of the wall clock: one record, id 1. */
export interface ClockOffset {
  readonly id: number;
  readonly offsetMs: number;
}

/**
 * The mark price test control set on a product, and how many fills the product had then: it
 * holds until the product's next fill.
 */
export interface MarkPrice {
  readonly productId: number;
  readonly price: D;
  readonly fills: number;
}

export interface LeverageSetting {
  readonly tradingAccountId: number;
  readonly userId: number;
  readonly productId: number;
  readonly leverageLevel: number;
}

export interface Fill {
  readonly id: number;
  readonly productId: number;
  readonly takerOrderId: number;
  readonly makerOrderId: number;
  readonly takerSide: 'buy' | 'sell';
  readonly price: D;
  readonly quantity: D;
  readonly createdAt: number;
  /**
   * What the fill realized for each margin side, in its funding currency: the profit or loss
   * a closing side was paid (`cfd_pnl`), 0 for a side that opened or added to a trade. Null
   * for a spot side, and for a fill written before the store kept it.
   */
  readonly takerPnl: D | null;
  readonly makerPnl: D | null;
}

/**
 * A fill as one of its orders' users sees it, placed among that user's own fills of the
 * product, from 1, oldest first: a fill between two of the user's orders is there twice.
 */
export interface OwnFill {
  readonly userId: number;
  readonly productId: number;
  readonly place: number;
  readonly fillId: number;
  readonly orderId: number;
  readonly taker: boolean;
  readonly createdAt: number;
}

/**
 * One change of one balance, with the balance after it: an account's balance is the sum of
 * its entries, and changes only as one is posted (`exchange/ledger.ts`).
 */
export interface LedgerEntry {
  readonly id: number;
  readonly userId: number;
  readonly currency: string;
  readonly amount: D;
  readonly balance: D;
  readonly sourceAction: components['schemas']['LedgerSourceAction'];
  readonly sourceObjectType: components['schemas']['LedgerSourceObjectType'] | null;
  readonly sourceObjectId: number | null;
  readonly createdAt: number;
  /** Its place among its user's entries of its currency, from 1, oldest first. */
  readonly currencyPlace: number;
}

/**
 * A withdrawal of crypto to an address, or of fiat to a bank account. While its state is not
 * terminal it holds `amount` plus `fee` of its owner's balance reserved.
 */
export interface Withdrawal {
  readonly id: number;
  readonly userId: number;
  readonly kind: 'crypto' | 'fiat';
  readonly currency: string;
  readonly amount: D;
  readonly fee: D;
  readonly state: components['schemas']['WithdrawalState'];
  /** Crypto: where it goes, and on which network with which payment id or memo. */
  readonly address: string | null;
  readonly network: string | null;
  readonly paymentId: string | null;
  readonly memoType: string | null;
  readonly memoValue: string | null;
  readonly transactionHash: string | null;
  /** Fiat: the bank account it goes to. */
  readonly bankAccountId: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * An offer to lend `quantity` of a crypto currency at a daily `rate`. While live it holds its
 * quantity of its owner's balance reserved and shows in the currency's loan book.
 */
export interface LoanBid {
  readonly id: number;
  readonly userId: number;
  readonly currency: string;
  readonly rate: D;
  readonly quantity: D;
  /** What is lent from it now: the rest of its quantity is what it holds and offers. */
  readonly lent: D;
  readonly status: components['schemas']['LoanBidStatus'];
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * What a margin position borrowed of its funding currency, from a loan bid or from the house
 * (`bidId` null; one open loan per position, which its fills add to); with `positionId` null,
 * what traders who are not sandbox users borrowed from a bid, the house standing for them (test
 * control lends it). Interest is charged on what is not yet repaid, once per whole day of the
 * sandbox's clock from `createdAt`; `chargedUntil` is where the days charged end.
 */
export interface Loan {
  readonly id: number;
  readonly positionId: number | null;
  readonly bidId: number | null;
  readonly lenderId: number;
  readonly borrowerId: number;
  readonly currency: string;
  /**
   * Its place among its lender's loans of its currency, lent or borrowed alike, from 1, oldest
   * first.
   */
  readonly lenderPlace: number;
  /** Its place among its borrower's loans of its currency: the lender's, lent to oneself. */
  readonly borrowerPlace: number;
  readonly rate: D;
  readonly quantity: D;
  readonly repaid: D;
  readonly interest: D;
  readonly chargedUntil: number;
  /** The lender's choice: what is repaid goes back to the bid (true) or to the lender. */
  readonly fundReloaned: boolean;
  readonly status: components['schemas']['LoanStatus'];
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A deposit asked for, or received and credited to its user's balance. */
export interface Deposit {
  readonly id: number;
  readonly userId: number;
  readonly currency: string;
  readonly amount: D;
  readonly state: components['schemas']['FundInfoState'];
  readonly transactionHash: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface LoanLevel {
  readonly rate: string;
  readonly amount: string;
}

/** A level of a currency's loan book, as it is stored. */
export interface LoanBookLevel extends LoanLevel {
  readonly currency: string;
  readonly side: 'bid' | 'ask';
}

/**
 * Orders that take what the book offers and never rest: a market order, a market order
 * bounded by a price range, and a stop (a stop loss, a stop or a trailing stop) once
 * triggered; until then it waits, conditional.
 */
export const takesOnly = (orderType: string) =>
  orderType === 'market' ||
  orderType === 'market_with_range' ||
  orderType === 'stop' ||
  orderType === 'trailing_stop';

/** Orders that still rest in the book (or wait, for conditional ones) and can be cancelled. */
export const isOpen = (order: Order) => hasFlag('order', order.status, 'open');
