/**
 * The Quick Exchange partner interface: its types (`paths`, `components`, `operations`, as openapi-typescript
 * names them) and its operations table, one entry per operationId.
 */
export type { components, operations, paths } from './generated/partner.js';
export { loadSchemas, operationTable, secretFields } from './generated/partner.operations.js';
