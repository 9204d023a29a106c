export { createPartnerClient, type PartnerClient, type PartnerClientOptions } from './client.js';
export type { components, operations, paths } from './generated/partner.js';
