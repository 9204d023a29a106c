/**
 * Hooks for a trading page: a product's live book and recent fills, from the exchange's public
 * reads and channels. An entry of its own, so the partner flows' pages do not carry it.
 */
export type { Execution } from '@exchange-kit/exchange-client';
export { exchangeKeys } from '../query-keys.js';
export {
  type ExecutionsHookOptions,
  executionsQueryOptions,
  type RecentExecutions,
  useExecutions,
} from './executions.js';
export {
  type BookLevel,
  type OrderBook,
  orderBookQueryOptions,
  type TradingHookOptions,
  useOrderBook,
} from './order-book.js';
export type { Market, RepairedGap, TradingClient } from './trading-client.js';
