/** Types of the schemas both interfaces share: decimals, timestamps, the JWT payloads. */
export type * from './generated/common.js';
