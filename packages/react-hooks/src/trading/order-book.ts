import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { exchangeKeys } from '../query-keys.js';
import type { QueryOverrides } from '../query-overrides.js';
import { compareDecimals } from './decimal-order.js';
import { follow, type LiveData, type LiveSource, readLive } from './live-feed.js';
import type { Market, TradingClient } from './trading-client.js';

/** One level of a book: its price and the quantity at it, exact decimal strings. */
export type BookLevel = readonly [price: string, quantity: string];

export interface OrderBook extends LiveData {
  /** Bids, highest price first. */
  buy: BookLevel[];
  /** Asks, lowest price first. */
  sell: BookLevel[];
}

type Side = 'buy' | 'sell';
type SideChange = { side: Side; levels: readonly (readonly [unknown, unknown])[] };

/** Best price first: highest bid, lowest ask. */
const sorted = (side: Side, levels: SideChange['levels']): BookLevel[] =>
  levels
    .map(([price, quantity]): BookLevel => [String(price), String(quantity)])
    .sort(([a], [b]) => (side === 'buy' ? compareDecimals(b, a) : compareDecimals(a, b)));

function orderBookSource(client: TradingClient, market: Market): LiveSource<OrderBook, SideChange> {
  const productId = String(market.productId);
  return {
    queryKey: exchangeKeys.orderBook(productId, market.pair),
    client,
    async read(signal) {
      const book = await client.products.priceLevels(productId, { signal });
      return {
        buy: sorted('buy', book.buy_price_levels),
        sell: sorted('sell', book.sell_price_levels),
      };
    },
    // Each event of a side's channel is the whole side.
    channels: (listen, update) =>
      (['buy', 'sell'] as const).map((side) =>
        listen('priceLadders', { pair: market.pair, side }, ({ data }) =>
          update({ side, levels: data }),
        ),
      ),
    apply: (book, { side, levels }) => ({ ...book, [side]: sorted(side, levels) }),
  };
}

/**
 * A product's book: the REST read once its `priceLadders` channels are subscribed, kept live
 * by them, and read again after a reconnect's gap (`data.gap` tells the last one).
 */
export function orderBookQueryOptions(client: TradingClient, market: Market) {
  const source = orderBookSource(client, market);
  return queryOptions({
    queryKey: source.queryKey,
    queryFn: ({ client: queryClient, signal }) => readLive(queryClient, source, signal),
    // The channels keep it current while a component follows it.
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export interface TradingHookOptions {
  /** `createPublicClient({ baseUrl })` of `@exchange-kit/exchange-client`, in a browser. */
  client: TradingClient;
}

/**
 * The live book of a product, TanStack's query result: `data` is `{ buy, sell, gap }`. Every
 * component showing the same product shares one subscription, left with the last of them.
 */
export function useOrderBook(
  market: Market,
  options: TradingHookOptions & QueryOverrides<OrderBook, Error>,
) {
  const { client, ...query } = options;
  const queryClient = useQueryClient();
  const { productId, pair } = market;
  // Before the query: its first read then waits for the channels instead of racing them.
  useEffect(
    () => follow(queryClient, orderBookSource(client, { productId, pair })),
    [queryClient, client, productId, pair],
  );
  return useQuery({ ...query, ...orderBookQueryOptions(client, { productId, pair }) });
}
