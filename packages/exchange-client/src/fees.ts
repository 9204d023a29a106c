import type {
  FeeEstimate,
  FeeEstimateRequest,
  FeeRule,
  FeeTier,
  operations as Operations,
  operationTable,
} from '@exchange-kit/contract/exchange';
import type { PerCallOptions, WithDecimalInputs } from '@exchange-kit/core';
import type { Call } from './api.js';

export type {
  FeeEstimate,
  FeeOption,
  FeeRule,
  FeeTier,
  FeeType,
} from '@exchange-kit/contract/exchange';

/** The order whose fill to estimate; `quantity` and `price` may be numbers, strings or Decimals. */
export type FeeEstimateInput = WithDecimalInputs<
  FeeEstimateRequest,
  (typeof operationTable)['estimateFee']['requestDecimals']
>;
/** `fee_type`: only the rules of one kind of fee. */
export type FeeRulesQuery = NonNullable<Operations['listFees']['parameters']['query']>;

/**
 * `client.fees`: the fee rules, the caller's tier, and what a fill would cost. An estimate is
 * the amount and currency of the `trade_fee` ledger entry the fill it describes is charged.
 */
export function feeCalls(call: Call) {
  return {
    /** The exchange's fee rules: each product's taker and maker rates, each currency's withdrawal fee. */
    schedule(query: FeeRulesQuery = {}, options?: PerCallOptions): Promise<FeeRule[]> {
      return call('listFees', { query }, options);
    },
    /** The fee rules at the caller's tier. */
    mine(query: FeeRulesQuery = {}, options?: PerCallOptions): Promise<FeeRule[]> {
      return call('listUserFees', { query }, options);
    },
    /** The caller's fee tier and the trading volume of the last 30 days it is judged on. */
    tier(options?: PerCallOptions): Promise<FeeTier> {
      return call('getFeeTier', {}, options);
    },
    /**
     * The fee a fill of this order would be charged: the taker rate unless the order would
     * rest (`limit_post_only`, or a `limit` price short of the book). Places nothing.
     */
    estimate(order: FeeEstimateInput, options?: PerCallOptions): Promise<FeeEstimate> {
      return call('estimateFee', { body: order as FeeEstimateRequest }, options);
    },
  };
}
