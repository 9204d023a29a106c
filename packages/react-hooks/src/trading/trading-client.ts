import type { EventsClient, PublicClient } from '@exchange-kit/exchange-client';

/**
 * What the trading hooks use of an exchange client: the public book and fills reads and the
 * public channels. In a browser that is `createPublicClient({ baseUrl })`, which holds no
 * token; a signing `createExchangeClient` fits as well, on a server.
 */
export interface TradingClient {
  events: Pick<EventsClient, 'subscribe'>;
  products: Pick<PublicClient['products'], 'priceLevels'>;
  executions: Pick<PublicClient['executions'], 'list'>;
}

/** A product as the hooks name it: its id for the REST reads, its pair for the channels. */
export interface Market {
  productId: number | string;
  /** The product's `currency_pair_code`, as `BTCJPY`. */
  pair: string;
}

/** Events between `since` and `until` (ms since the epoch) may have been missed, and were read again. */
export interface RepairedGap {
  since: number;
  until: number;
}
