import type { Execution } from '@exchange-kit/exchange-client';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { exchangeKeys } from '../query-keys.js';
import type { QueryOverrides } from '../query-overrides.js';
import { follow, type LiveData, type LiveSource, readLive } from './live-feed.js';
import type { TradingHookOptions } from './order-book.js';
import type { Market, TradingClient } from './trading-client.js';

/** How many fills the cache keeps per product; a hook shows up to its `limit` of them. */
export const keptFills = 100;

export interface RecentExecutions extends LiveData {
  /** Newest first, at most `limit`; decimals exact. */
  executions: Execution[];
}

const newestFirst = (a: Execution, b: Execution) => b.created_at - a.created_at || b.id - a.id;

function executionsSource(
  client: TradingClient,
  market: Market,
): LiveSource<RecentExecutions, Execution> {
  const productId = String(market.productId);
  return {
    queryKey: exchangeKeys.executionsOf(productId, market.pair),
    client,
    async read(signal) {
      const page = await client.executions.list(
        { product_id: productId, limit: keptFills },
        { signal },
      );
      return { executions: [...page.models].sort(newestFirst).slice(0, keptFills) };
    },
    channels: (listen, update) => [
      listen('executionsCash', { pair: market.pair }, ({ data }) => update(data)),
    ],
    // A fill the read already had is not shown twice.
    apply: (recent, fill) =>
      recent.executions.some((known) => known.id === fill.id)
        ? recent
        : {
            ...recent,
            executions: [fill, ...recent.executions].sort(newestFirst).slice(0, keptFills),
          },
  };
}

/**
 * A product's recent fills: the REST read once its `executionsCash` channel is subscribed,
 * kept live by it, and read again after a reconnect's gap.
 */
export function executionsQueryOptions(client: TradingClient, market: Market) {
  const source = executionsSource(client, market);
  return queryOptions({
    queryKey: source.queryKey,
    queryFn: ({ client: queryClient, signal }) => readLive(queryClient, source, signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export interface ExecutionsHookOptions extends TradingHookOptions {
  /** How many fills to show, newest first: 20 unless said, at most 100. */
  limit?: number;
}

/**
 * The live recent fills of a product, TanStack's query result: `data` is `{ executions, gap }`,
 * newest first. Components showing the same product share one subscription.
 */
export function useExecutions(
  market: Market,
  options: ExecutionsHookOptions & Omit<QueryOverrides<RecentExecutions, Error>, 'select'>,
) {
  const { client, limit = 20, ...query } = options;
  const queryClient = useQueryClient();
  const { productId, pair } = market;
  useEffect(
    () => follow(queryClient, executionsSource(client, { productId, pair })),
    [queryClient, client, productId, pair],
  );
  return useQuery({
    ...query,
    ...executionsQueryOptions(client, { productId, pair }),
    select: (recent) => ({ ...recent, executions: recent.executions.slice(0, limit) }),
  });
}
