import { statesWith } from '@exchange-kit/contract/state-tables';
import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import type { Transaction } from '../state/partner-state.js';
import { refused } from './control-answers.js';
import type { ControlCall } from './control-route.js';

const terminal: readonly string[] = statesWith('transaction', 'terminal');

/**
 * `POST /test/transactions/{transaction_id}/status` with `{"status": "FILLED"}` (or any
 * terminal state of the transaction table) ends a transaction as its settlements would.
 */
export async function endTransaction({
  sequencer,
  params,
  body,
}: ControlCall<{ transaction_id: string }>): Promise<Serialized> {
  const { status } = body;
  if (typeof status !== 'string' || !terminal.includes(status)) {
    return refused('status', `must_be_one_of:${terminal.join(',')}`);
  }
  const ended = await sequencer.run((journal) => {
    const found = journal.partner.transactions.get(params.transaction_id);
    if (!found) return false;
    journal.touch('transaction', found).status = status as Transaction['status'];
    return true;
  });
  return ended
    ? uncachedJson(200, { transaction_id: params.transaction_id, status })
    : uncachedJson(404, { message: 'Transaction not found' });
}
