export { createExchangeClient, type ExchangeClient, type ExchangeClientOptions } from './client.js';
export type { components, operations, paths } from './generated/exchange.js';
