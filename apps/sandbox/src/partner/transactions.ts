/** Quick Exchange transactions: loading, rendering and the message naming the next step. */
import type { Queryable } from '../domain/queryable.js';
import { type InstructionRow, instructionsOf, renderInstruction } from './instructions.js';
import { missingInputs } from './methods.js';
import type { PartnerTransaction, Transaction, TransactionStatus } from './schema-types.js';

export interface TransactionRow {
  id: string;
  partner_id: number;
  session_id: string;
  intent_id: string | null;
  client_ref: string | null;
  api_key: string | null;
  status: TransactionStatus;
  funding_currency: string;
  funding_quantity: string;
  payout_currency: string;
  payout_quantity: string;
  partner_order_id: string | null;
  partner_ref: string | null;
  partner_tags: string[] | null;
  created_at: string | number;
}

export const transactionColumns = `id, partner_id, session_id, intent_id, client_ref, api_key, status,
  funding_currency, funding_quantity::text AS funding_quantity, payout_currency,
  payout_quantity::text AS payout_quantity, partner_order_id, partner_ref, partner_tags, created_at`;

/**
 * One transaction. With `lock`, its row is held until the call's transaction ends, so that
 * concurrent changes to its instructions are settled one after the other.
 */
export async function findTransaction(
  db: Queryable,
  id: string,
  lock = false,
): Promise<TransactionRow | undefined> {
  const { rows } = await db.query<TransactionRow>(
    `SELECT ${transactionColumns} FROM qe_transactions WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0];
}

export async function findByClientRef(
  db: Queryable,
  partnerId: number,
  clientRef: string,
): Promise<TransactionRow | undefined> {
  const { rows } = await db.query<TransactionRow>(
    `SELECT ${transactionColumns} FROM qe_transactions WHERE partner_id = $1 AND client_ref = $2`,
    [partnerId, clientRef],
  );
  return rows[0];
}

export function renderTransaction(
  row: TransactionRow,
  instructions: InstructionRow[],
): Transaction {
  const transaction: Transaction = {
    client_ref: row.client_ref,
    transaction_id: row.id,
    session_id: row.session_id,
    status: row.status,
  };
  if (row.api_key !== null) transaction.api_key = row.api_key;
  for (const instruction of instructions) {
    const key = instruction.direction === 'FUNDING' ? 'funding_settlement' : 'payout_settlement';
    transaction[key] = renderInstruction(instruction);
  }
  return transaction;
}

/** The transaction as its partner lists it: with its creation time, intent and partner fields. */
export function renderPartnerTransaction(
  row: TransactionRow,
  instructions: InstructionRow[],
): PartnerTransaction {
  const listed: PartnerTransaction = {
    ...renderTransaction(row, instructions),
    created_at: Number(row.created_at),
    intent_id: row.intent_id,
  };
  if (row.partner_order_id !== null) listed.partner_order_id = row.partner_order_id;
  if (row.partner_ref !== null) listed.partner_ref = row.partner_ref;
  if (row.partner_tags !== null) listed.partner_tags = row.partner_tags;
  return listed;
}

export async function loadTransaction(db: Queryable, row: TransactionRow): Promise<Transaction> {
  const instructions = (await instructionsOf(db, [row.id])).get(row.id) ?? [];
  return renderTransaction(row, instructions);
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
            ? missingInputs(instruction.required_input_parameters, instruction.received_input).map(
                (name) => `${instruction.direction.toLowerCase()} ${name}`,
              )
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
