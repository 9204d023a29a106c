/** The Quick Exchange partner operations, keyed by the operationId of spec/partner.openapi.yaml. */
import type { Handlers } from '../domain/operation.js';
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

/** For the authentication layer: verifies session Bearer JWTs. */
export { findSessionSecret } from './sessions.js';
