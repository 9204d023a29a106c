/** Runtime zod schemas of every request and response of the exchange spec, generated from spec/. */
export * from './generated/exchange.zod.js';
