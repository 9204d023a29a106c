import type {
  operations as Operations,
  operationTable as operations,
  Trade,
  TradeClose,
  TradeCloseAllFilters,
  TradeList,
  TradeMarginAdjustment,
  TradeUpdate,
} from '@exchange-kit/contract/exchange';
import type { PerCallOptions, WithDecimalInputs } from '@exchange-kit/core';
import type { Call } from './api.js';
import { everyRow } from './every-row.js';

export type { Trade, TradeList, TradeSide, TradeStatus } from '@exchange-kit/contract/exchange';

/** Filters of a page of trades: `status`, `side`, `product_id`, `funding_currency`, `trading_type`. */
export type ListTradesQuery = NonNullable<Operations['listTrades']['parameters']['query']>;
/** How much of a trade to close; all that is open when left out. Decimals in any form. */
export type TradeCloseInput = WithDecimalInputs<
  TradeClose,
  typeof operations.closeTrade.requestDecimals
>;
/** A trade's new take profit and/or stop loss. */
export type TradeExitsInput = WithDecimalInputs<
  NonNullable<TradeUpdate['trade']>,
  NonNullable<(typeof operations.updateTrade.requestDecimals)['trade']>
>;

/** Margin to add (positive) or take back (negative). */
export type TradeMarginInput = WithDecimalInputs<
  TradeMarginAdjustment,
  typeof operations.adjustTradeMargin.requestDecimals
>;

/** The calls on trades, the positions margin orders open. */
export function tradeCalls(call: Call) {
  return {
    /** One page of the caller's trades, newest first. */
    list(query: ListTradesQuery = {}, options?: PerCallOptions): Promise<TradeList> {
      return call('listTrades', { query }, options);
    },
    /** Every trade matching the filters, fetching page after page as the loop asks for more. */
    iterate(
      query: Omit<ListTradesQuery, 'page'> = {},
      options?: PerCallOptions,
    ): AsyncGenerator<Trade, void, undefined> {
      return everyRow((page) => call('listTrades', { query: { ...query, page } }, options));
    },
    /**
     * The trades an order opened, added to or closed: each its fills opened, oldest first (a
     * resting order whose trade was liquidated opens another), then the one it closes.
     */
    ofOrder(orderId: number | string, options?: PerCallOptions): Promise<Trade[]> {
      return call('listOrderTrades', { path: { order_id: orderId } }, options);
    },
    /** Closes all of a trade at the market, or `closed_quantity` of it. */
    close(
      tradeId: number | string,
      close: TradeCloseInput = {},
      options?: PerCallOptions,
    ): Promise<Trade> {
      return call(
        'closeTrade',
        { path: { trade_id: tradeId }, body: close as TradeClose },
        options,
      );
    },
    /** Closes every open trade (of one side with `side`); answers the trades it closed. */
    closeAll(filters?: TradeCloseAllFilters, options?: PerCallOptions): Promise<Trade[]> {
      return call('closeAllTrades', { body: filters }, options);
    },
    /** Sets the take profit and/or stop loss that close a trade. */
    setExits(
      tradeId: number | string,
      exits: TradeExitsInput,
      options?: PerCallOptions,
    ): Promise<Trade> {
      return call(
        'updateTrade',
        { path: { trade_id: tradeId }, body: { trade: exits } as TradeUpdate },
        options,
      );
    },
    /** Adds `delta` of margin to a trade, or takes back what was added with a negative one. */
    adjustMargin(
      tradeId: number | string,
      delta: TradeMarginInput['delta'],
      options?: PerCallOptions,
    ): Promise<Trade> {
      return call(
        'adjustTradeMargin',
        { path: { trade_id: tradeId }, body: { delta } as TradeMarginAdjustment },
        options,
      );
    },
  };
}
