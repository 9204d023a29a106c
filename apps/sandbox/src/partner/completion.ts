import type { Handler, Handlers } from '../domain/operation.js';
import type { Queryable } from '../domain/queryable.js';

/**
 * The sandbox's stand-in for the settlements themselves, which the interface does not show:
 * a PENDING transaction whose settlements started `afterMs` ago or earlier is FILLED and its
 * instructions COMPLETE. Applied as transactions are read or changed, so it follows the
 * sandbox's clock (injectable in tests) rather than a timer.
 */
export async function completeDueSettlements(
  db: Queryable,
  now: number,
  afterMs: number,
): Promise<void> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE qe_transactions SET status = 'FILLED'
      WHERE status = 'PENDING' AND coalesce(pending_since, created_at) <= $1
      RETURNING id`,
    [now - afterMs],
  );
  if (rows.length === 0) return;
  await db.query(
    `UPDATE qe_settlement_instructions SET status = 'COMPLETE', expires_at = NULL
      WHERE transaction_id = ANY($1::uuid[])`,
    [rows.map((row) => row.id)],
  );
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
    async (context) => {
      await completeDueSettlements(context.db, context.now, afterMs);
      return handler(context);
    };
  return Object.fromEntries(
    Object.entries(handlers).map(([operationId, handler]) => [
      operationId,
      touchingTransactions.includes(operationId) ? completing(handler) : handler,
    ]),
  );
}
