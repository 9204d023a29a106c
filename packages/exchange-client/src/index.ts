export type { components, operations, paths } from './generated/exchange.js';
