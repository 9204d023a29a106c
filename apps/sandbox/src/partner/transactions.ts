/** Quick Exchange transactions: loading, rendering and the message naming the next step. */

import type { PartnerTransaction, Transaction } from '@exchange-kit/contract/partner';
import type {
  Instruction,
  PartnerState,
  Transaction as TransactionRow,
} from '../state/partner-state.js';
import { renderInstruction } from './instructions.js';
import { missingInputNames } from './methods.js';

export function renderTransaction(row: TransactionRow, instructions: Instruction[]): Transaction {
  const transaction: Transaction = {
    client_ref: row.clientRef,
    transaction_id: row.id,
    session_id: row.sessionId,
    status: row.status,
  };
  if (row.apiKey !== null) transaction.api_key = row.apiKey;
  for (const instruction of instructions) {
    const key = instruction.direction === 'FUNDING' ? 'funding_settlement' : 'payout_settlement';
    transaction[key] = renderInstruction(instruction);
  }
  return transaction;
}

/** The transaction as its partner lists it: with its creation time, intent and partner fields. */
export function renderPartnerTransaction(
  row: TransactionRow,
  instructions: Instruction[],
): PartnerTransaction {
  const listed: PartnerTransaction = {
    ...renderTransaction(row, instructions),
    created_at: row.createdAt,
    intent_id: row.intentId,
  };
  if (row.partnerOrderId !== null) listed.partner_order_id = row.partnerOrderId;
  if (row.partnerRef !== null) listed.partner_ref = row.partnerRef;
  if (row.partnerTags !== null) listed.partner_tags = row.partnerTags;
  return listed;
}

/** A transaction with its instructions, as the interface shows it. */
export function transactionView(state: PartnerState, row: TransactionRow): Transaction {
  return renderTransaction(row, state.instructionsOf(row.id));
}

/** The message of a transaction response names the step the client has to take next. */
export function nextStepMessage(transaction: Transaction): string {
  switch (transaction.status) {
    case 'SETTLEMENT_METHOD_REQUIRED':
      return 'Settlement method required. Set the funding and payout methods with /settlement/method.';
    case 'SETTLEMENT_PARAMETERS_REQUIRED': {
      const missing = [transaction.funding_settlement, transaction.payout_settlement].flatMap(
        (instruction) =>
          instruction
            ? missingInputNames(
                instruction.required_input_parameters,
                instruction.received_input,
              ).map((name) => `${instruction.direction.toLowerCase()} ${name}`)
            : [],
      );
      return `Settlement parameters required. Supply ${missing.join(', ')} with /settlement/parameters.`;
    }
    case 'PENDING':
      return 'Transaction pending. Funding and payout settlements are in progress.';
    default:
      return `Transaction ${transaction.status.toLowerCase()}.`;
  }
}
