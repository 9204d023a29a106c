/** The runtime schemas of the events' payloads: what a parsed `data` string must match. */
export { channelPayloadSchemas, protocolPayloadSchemas } from './generated/events.zod.js';
