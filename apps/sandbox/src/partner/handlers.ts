/** The Quick Exchange partner operations, keyed by the operationId of spec/partner.openapi.yaml. */
import { canonicalUuid } from '../handling/ids.js';
import type { Handlers, StoredReadsOf } from '../handling/operation.js';
import { intentToTrade } from './intent-to-trade.js';
import { createIntent } from './intents.js';
import { listPartnerTransactions } from './listing.js';
import { createSession } from './sessions.js';
import { setSettlementMethod, setSettlementParameters } from './settlement.js';
import { getTransactionStatus } from './transaction-status.js';

export const partnerHandlers: Handlers = {
  createSession,
  createIntent,
  intentToTrade,
  setSettlementMethod,
  setSettlementParameters,
  getTransactionStatus,
  listPartnerTransactions,
};

/** The intent a body names at `key` of `holder`, when it is an id. */
function intentAt(holder: unknown, key: string): { intents: string[] } {
  const value = (holder as Record<string, unknown> | null | undefined)?.[key];
  const id = canonicalUuid(value);
  return { intents: id === undefined ? [] : [id] };
}

/** The calls that read an intent: the widget's session and a transaction on an intent. */
export const partnerStoredReads: StoredReadsOf = {
  createSession: (body) => intentAt((body as { config?: unknown } | null)?.config, 'intent_id'),
  intentToTrade: (body) => intentAt(body, 'intent_id'),
};

/** For the authentication layer: verifies session Bearer JWTs. */
export { findSessionSecret } from './sessions.js';
