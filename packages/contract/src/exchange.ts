/**
 * The exchange REST interface: its types (`paths`, `components`, `operations`, as openapi-typescript
 * names them) and its operations table, one entry per operationId.
 */
export type { components, operations, paths } from './generated/exchange.js';
export { loadSchemas, operationTable, secretFields } from './generated/exchange.operations.js';
