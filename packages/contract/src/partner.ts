/**
 * The Quick Exchange partner interface: its types (`paths`, `components`, `operations`, as openapi-typescript
 * names them), one type per schema under the spec's name, and its operations table, one entry per operationId.
 */
export type * from './generated/partner.js';
export { loadSchemas, operationTable, secretFields } from './generated/partner.operations.js';
