/**
 * The exchange's public reads and channels, for whoever holds no token: a trading page shows
 * the book and the fills of a product without any secret reaching the browser. Nothing is
 * signed, so the private channels are refused.
 */
import { eventsPath } from '@exchange-kit/contract/events';
import {
  type Currency,
  type Execution,
  type ExecutionList,
  loadSchemas,
  type operations as Operations,
  operationTable as operations,
  type PriceLevels,
  type Product,
  type paths,
  secretFields,
} from '@exchange-kit/contract/exchange';
import { type ConnectionOptions, createApi, type PerCallOptions } from '@exchange-kit/core';
import type { Call } from './api.js';
import { createEventsClient, type EventsClient, type EventsOptions } from './events.js';
import { everyRow } from './every-row.js';

type ExecutionsQuery = Operations['listExecutions']['parameters']['query'];
/** Which page of a product's fills: `product_id`, and `limit`, `page`. */
export type ListExecutionsQuery = Omit<ExecutionsQuery, 'timestamp'>;
/** The fills of a product from a second on: `product_id`, `timestamp`, and `limit`. */
export type ExecutionsSinceQuery = Omit<ExecutionsQuery, 'page' | 'timestamp'> & {
  timestamp: number;
};

/** The events endpoint on the host of `baseUrl`. */
export function eventsUrl(baseUrl: string): string {
  const url = new URL(eventsPath, baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

/** A product's fills, which anyone may read: a signing client's calls or an unsigned one's. */
export function executionReads(call: Call) {
  return {
    /** One page of a product's fills, newest first. */
    async list(query: ListExecutionsQuery, options?: PerCallOptions): Promise<ExecutionList> {
      // Without a timestamp the operation answers its paged form.
      return (await call('listExecutions', { query }, options)) as ExecutionList;
    },
    /** Every fill of a product, newest first, fetching page after page as the loop asks. */
    iterate(
      query: Omit<ListExecutionsQuery, 'page'>,
      options?: PerCallOptions,
    ): AsyncGenerator<Execution, void, undefined> {
      return everyRow(
        async (page) =>
          (await call('listExecutions', { query: { ...query, page } }, options)) as ExecutionList,
      );
    },
    /**
     * A product's fills from `timestamp` (Unix seconds) on, oldest first. A second is never
     * split, so there may be more than `limit`; read on from the last `created_at` + 1.
     */
    async since(query: ExecutionsSinceQuery, options?: PerCallOptions): Promise<Execution[]> {
      return (await call('listExecutions', { query }, options)) as Execution[];
    },
  };
}

/** The products and their books, which anyone may read. */
export function productReads(call: Call) {
  return {
    list(query: { perpetual?: boolean } = {}, options?: PerCallOptions): Promise<Product[]> {
      // The interface reads any value of perpetual as true; any other key goes on, refused.
      const { perpetual, ...rest } = query;
      return call('listProducts', { query: perpetual ? { ...rest, perpetual: 1 } : rest }, options);
    },
    get(productId: number | string, options?: PerCallOptions): Promise<Product> {
      return call('getProduct', { path: { product_id: productId } }, options);
    },
    /** The order book of a product, best price first: the best 20 levels of each side. */
    priceLevels(productId: number | string, options?: PerCallOptions): Promise<PriceLevels> {
      return call('getPriceLevels', { path: { product_id: productId } }, options);
    },
    /** The whole order book of a product, every level of each side, best price first. */
    allPriceLevels(productId: number | string, options?: PerCallOptions): Promise<PriceLevels> {
      return call(
        'getPriceLevels',
        { path: { product_id: productId }, query: { full: 1 } },
        options,
      );
    },
  };
}

export function currencyReads(call: Call) {
  return {
    list(options?: PerCallOptions): Promise<Currency[]> {
      return call('listCurrencies', {}, options);
    },
  };
}

export interface PublicClientOptions extends ConnectionOptions {
  /** The exchange's base URL, for example https://api.exchange.example. */
  baseUrl: string;
  /** How `events` connects; `authenticate` is not taken: there is no token to sign with. */
  events?: Partial<Omit<EventsOptions, 'authenticate'>>;
}

/**
 * A client of the public reads (products, their books, fills, currencies) and the public
 * channels, with no token: what a browser page may hold.
 */
export function createPublicClient(options: PublicClientOptions) {
  const { baseUrl, events: eventsOptions, ...connection } = options;
  const { call } = createApi<paths, Operations>({
    ...connection,
    baseUrl,
    operations,
    loadSchemas,
    secretFields,
  });
  let events: EventsClient | undefined;
  return {
    products: productReads(call),
    executions: executionReads(call),
    currencies: currencyReads(call),
    /** The public channels, connected on the first subscription. */
    get events(): EventsClient {
      events ??= createEventsClient({ url: eventsUrl(baseUrl), ...eventsOptions });
      return events;
    },
  };
}

export type PublicClient = ReturnType<typeof createPublicClient>;
