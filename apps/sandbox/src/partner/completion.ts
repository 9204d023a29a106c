import type { Handler, Handlers } from '../handling/operation.js';
import type { Journal } from '../state/journal.js';

/**
 * The sandbox's stand-in for the settlements themselves, which the interface does not show:
 * a PENDING transaction whose settlements started `afterMs` ago or earlier is FILLED and its
 * instructions COMPLETE. Applied in the sequencer run of each call that reads or changes
 * transactions, before the call is decided, so it follows the sandbox's clock (injectable in
 * tests) rather than a timer, and is stored with that call's batch.
 */
export function completeDueSettlements(journal: Journal, now: number, afterMs: number): void {
  for (const transaction of journal.partner.pending()) {
    if ((transaction.pendingSince ?? transaction.createdAt) > now - afterMs) continue;
    journal.touch('transaction', transaction).status = 'FILLED';
    for (const instruction of journal.partner.instructionsOf(transaction.id)) {
      Object.assign(journal.touch('instruction', instruction), {
        status: 'COMPLETE',
        expiresAt: null,
      });
    }
  }
}

// Every operation that reads or changes a transaction sees it as the clock has it now.
const touchingTransactions = [
  'intentToTrade',
  'setSettlementMethod',
  'setSettlementParameters',
  'getTransactionStatus',
  'listPartnerTransactions',
];

/** `handlers` with settlements completing `afterMs` after a transaction became PENDING. */
export function completingSettlements(handlers: Handlers, afterMs: number): Handlers {
  const completing =
    (handler: Handler): Handler =>
    (context) => {
      completeDueSettlements(context.journal, context.now, afterMs);
      return handler(context);
    };
  return Object.fromEntries(
    Object.entries(handlers).map(([operationId, handler]) => [
      operationId,
      touchingTransactions.includes(operationId) ? completing(handler) : handler,
    ]),
  );
}
