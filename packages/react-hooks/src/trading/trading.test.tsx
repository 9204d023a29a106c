/**
 * The trading hooks under jsdom against the sandbox: the book and fills from the REST read and
 * the public channels, one subscription per product however many components, and the repair
 * after a lost connection. Orders are placed from the test's side, signed with the token.
 */

import { createRequire } from 'node:module';
import {
  createExchangeClient,
  createPublicClient,
  type EventsClient,
} from '@exchange-kit/exchange-client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type MarketProxy, startMarketProxy } from '../../test/market-proxy.js';
import {
  exchangeKeys,
  type Market,
  type TradingClient,
  useExecutions,
  useOrderBook,
} from './index.js';

// jsdom's WebSocket trips over its own Event class under Node: the tests use the `ws` package's
// Node build, which the browser conditions of this environment would not resolve to.
const { WebSocket } = createRequire(import.meta.url)('ws') as typeof import('ws');
let proxy: MarketProxy;
let market: Market;
const trader = () =>
  createExchangeClient({ baseUrl: inject('exchangeUrl'), ...inject('backendCredentials') });

beforeAll(async () => {
  proxy = await startMarketProxy(inject('exchangeUrl'));
  const products = await trader().products.list();
  const btcjpy = products.find((product) => product.currency_pair_code === 'BTCJPY');
  market = { productId: String(btcjpy?.id), pair: 'BTCJPY' };
});
afterAll(() => proxy?.close());

/** A public client through the proxy, with the subscriptions it opens and closes counted. */
function publicClient() {
  const client = createPublicClient({
    baseUrl: proxy.url,
    // jsdom's own events do not fit Node's WebSocket: the `ws` package's, as on Node 20.
    events: { WebSocket, reconnectDelayMs: 100, maxReconnectDelayMs: 300 },
  });
  const opened: string[] = [];
  const closed: string[] = [];
  const events: Pick<EventsClient, 'subscribe'> = {
    subscribe(name, parameters) {
      const subscription = client.events.subscribe(name, parameters);
      opened.push(subscription.address);
      return Object.assign(Object.create(subscription), {
        close() {
          closed.push(subscription.address);
          subscription.close();
        },
      });
    },
  };
  const counted: TradingClient = { ...client, events };
  return { client: counted, opened, closed, stop: () => client.events.close() };
}

function wrapperFor(
  queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } }),
) {
  return ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
}

/** A buy far below the market, so it rests: a level of its own on the buy side. */
async function restingBuy(price: string, quantity: string) {
  return trader().orders.create({
    order_type: 'limit',
    side: 'buy',
    product_id: market.productId,
    price,
    quantity,
  });
}

const hasLevel = (levels: readonly (readonly [string, string])[] | undefined, price: string) =>
  levels?.some(([at]) => at === price) ?? false;

describe('useOrderBook and useExecutions', () => {
  it('start from the REST read and follow the channels, sorted, newest fill first', async () => {
    const { client, stop } = publicClient();
    // What a component reads while it renders: TanStack re-renders for what was read.
    const { result, unmount } = renderHook(
      () => {
        const book = useOrderBook(market, { client });
        const fills = useExecutions(market, { client, limit: 5 });
        return {
          book: { status: book.status, data: book.data },
          fills: { status: fills.status, data: fills.data },
        };
      },
      { wrapper: wrapperFor() },
    );
    await waitFor(() => expect(result.current.book.status).toBe('success'));
    await waitFor(() => expect(result.current.fills.status).toBe('success'));
    const placed = await restingBuy('1017', '0.0017');
    await waitFor(() => expect(hasLevel(result.current.book.data?.buy, '1017')).toBe(true));
    const prices = (result.current.book.data?.buy ?? []).map(([price]) => Number(price));
    expect(prices).toEqual([...prices].sort((a, b) => b - a));
    expect(result.current.book.data?.buy.find(([price]) => price === '1017')).toEqual([
      '1017',
      '0.0017',
    ]);

    await trader().orders.create({
      order_type: 'market',
      side: 'buy',
      product_id: market.productId,
      quantity: '0.0012',
    });
    const [newest] = (await trader().executions.list({ product_id: market.productId })).models;
    await waitFor(() => expect(result.current.fills.data?.executions[0]).toEqual(newest));
    expect(result.current.fills.data?.executions.length).toBeLessThanOrEqual(5);
    await trader().orders.cancel({ id: placed.id });
    unmount();
    stop();
  });

  it('share one subscription per product, left when the last user unmounts', async () => {
    const { client, opened, closed, stop } = publicClient();
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const wrapper = wrapperFor(queryClient);
    const first = renderHook(() => useOrderBook(market, { client }), { wrapper });
    const second = renderHook(() => useOrderBook(market, { client }), { wrapper });
    await waitFor(() => expect(second.result.current.status).toBe('success'));
    expect(first.result.current.data).toBe(second.result.current.data);
    expect(opened.sort()).toEqual([
      'price_ladders_cash_btcjpy_buy',
      'price_ladders_cash_btcjpy_sell',
    ]);
    first.unmount();
    expect(closed).toEqual([]);
    second.unmount();
    expect(closed.sort()).toEqual(opened);
    const key = exchangeKeys.orderBook(market.productId.toString(), market.pair);
    // Nothing keeps it current any more: whoever comes next reads it again.
    expect(queryClient.getQueryState(key)?.isInvalidated).toBe(true);
    stop();
  });

  it('report the gap after a lost connection and show the book read again', async () => {
    const { client, stop } = publicClient();
    const { result, unmount } = renderHook(
      () => {
        const { status, data } = useOrderBook(market, { client });
        return { status, data };
      },
      { wrapper: wrapperFor() },
    );
    await waitFor(() => expect(result.current.status).toBe('success'));
    expect(result.current.data?.gap).toBeUndefined();
    proxy.down();
    // Placed while the page hears nothing: only the read after the gap can show it.
    const placed = await restingBuy('1019', '0.0019');
    proxy.up();
    await waitFor(() => expect(result.current.data?.gap).toBeDefined(), { timeout: 10_000 });
    await waitFor(() => expect(hasLevel(result.current.data?.buy, '1019')).toBe(true), {
      timeout: 10_000,
    });
    const gap = result.current.data?.gap;
    expect(gap && gap.since <= gap.until).toBe(true);
    await trader().orders.cancel({ id: placed.id });
    unmount();
    stop();
  });
});
