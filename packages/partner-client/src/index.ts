export type { components, operations, paths } from './generated/partner.js';
