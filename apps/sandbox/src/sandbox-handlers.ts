import { depositHandlers } from './exchange/deposits.js';
import { executionHandlers } from './exchange/executions.js';
import { feeHandlers } from './exchange/fee-reads.js';
import { ledgerHandlers } from './exchange/ledger-reads.js';
import { loanBidHandlers } from './exchange/loan-bids.js';
import { loanHandlers } from './exchange/loans.js';
import { marketHandlers } from './exchange/market.js';
import { oauthHandlers } from './exchange/oauth.js';
import { orderHandlers, orderStoredReads } from './exchange/orders.js';
import { tradeHandlers } from './exchange/trades.js';
import { tradingAccountHandlers } from './exchange/trading-accounts.js';
import { userHandlers } from './exchange/users.js';
import { withdrawalHandlers } from './exchange/withdrawals.js';
import type { Handlers, StoredReadsOf } from './handling/operation.js';
import { completingSettlements } from './partner/completion.js';
import { partnerHandlers, partnerStoredReads } from './partner/handlers.js';
import { requiringSessionAuth } from './partner/session-required.js';

/** The handlers of both interfaces; `exchangeUrl` is what OAuth hrefs name. */
export function sandboxHandlers(
  exchangeUrl: string,
  settleAfterMs?: number,
  requireSessionAuth = false,
): Handlers {
  const signed = requireSessionAuth ? requiringSessionAuth(partnerHandlers) : partnerHandlers;
  const partner =
    settleAfterMs === undefined ? signed : completingSettlements(signed, settleAfterMs);
  return oneHandlerEach([
    marketHandlers,
    orderHandlers,
    executionHandlers,
    userHandlers,
    tradeHandlers,
    oauthHandlers(exchangeUrl),
    ledgerHandlers,
    withdrawalHandlers,
    depositHandlers,
    feeHandlers,
    loanBidHandlers,
    loanHandlers,
    tradingAccountHandlers,
    partner,
  ]);
}

/** The stored rows calls of both interfaces read in before they are decided. */
export const sandboxStoredReads: StoredReadsOf = { ...partnerStoredReads, ...orderStoredReads };

/**
 * The groups' handlers as one table. A second handler for an operation would silently replace
 * the first in a spread: it stops the start instead, naming the operation.
 */
export function oneHandlerEach(groups: Handlers[]): Handlers {
  const handlers: Handlers = {};
  for (const group of groups) {
    for (const [operationId, handler] of Object.entries(group)) {
      if (operationId in handlers) throw new Error(`${operationId} has two handlers`);
      handlers[operationId] = handler;
    }
  }
  return handlers;
}
