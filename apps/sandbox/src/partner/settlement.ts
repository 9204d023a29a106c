/** Choosing a settlement method and supplying its parameters after the transaction exists. */
import { zUuid } from '@exchange-kit/contract/partner/schemas';
import type { Caller, PartnerHandlerOf } from '../domain/operation.js';
import type { Queryable } from '../domain/queryable.js';
import { invalid, notFound, rejectNul } from './errors.js';
import {
  findInstruction,
  type InstructionRow,
  putInstruction,
  renderInstruction,
  settle,
  updateReceivedInput,
} from './instructions.js';
import {
  acceptInputs,
  checkMethod,
  missingInputs,
  requiredInputs,
  setupParameters,
} from './methods.js';
import { QUOTE_TTL_MS, requireAsset } from './quotes.js';
import { findTransaction, type TransactionRow } from './transactions.js';

/**
 * The transaction a settlement call acts on. A session token may only act on its own session's
 * transactions; another session's transaction is reported as absent. Calls that change it lock it.
 */
export async function visibleTransaction(
  db: Queryable,
  caller: Caller,
  id: string,
  field: string,
  lock = false,
): Promise<TransactionRow> {
  const transaction = zUuid.safeParse(id).success ? await findTransaction(db, id, lock) : undefined;
  if (!transaction || (caller.kind === 'session' && caller.sessionId !== transaction.session_id)) {
    throw notFound('Transaction', field);
  }
  return transaction;
}

/** Once settlement is under way its instructions are no longer the client's to change. */
function checkChangeable(transaction: TransactionRow, field: string): void {
  if (
    transaction.status !== 'SETTLEMENT_METHOD_REQUIRED' &&
    transaction.status !== 'SETTLEMENT_PARAMETERS_REQUIRED'
  ) {
    throw invalid(
      field,
      'not_changeable',
      `The transaction is ${transaction.status}; its settlement can no longer change`,
    );
  }
}

/**
 * An instruction past its expiry was priced from a quote that no longer holds: nothing may
 * settle on it. Setting a method again (see setSettlementMethod) quotes afresh.
 */
async function checkNotExpired(db: Queryable, transactionId: string, now: number): Promise<void> {
  const { rows } = await db.query<{ expires_at: string }>(
    `SELECT expires_at::text AS expires_at FROM qe_settlement_instructions
      WHERE transaction_id = $1 AND expires_at IS NOT NULL AND expires_at <= $2
      ORDER BY expires_at LIMIT 1`,
    [transactionId, now],
  );
  const expired = rows[0];
  if (expired) {
    throw invalid(
      'settlement_instruction_id',
      'expired',
      `The settlement instructions expired at ${new Date(Number(expired.expires_at)).toISOString()}; set the settlement method again for a fresh quote`,
    );
  }
}

async function instructionReply(db: Queryable, id: string, message: string) {
  const row = (await findInstruction(db, id)) as InstructionRow;
  const instruction = renderInstruction(row);
  const missing = missingInputs(instruction.required_input_parameters, instruction.received_input);
  return {
    status: 202 as const,
    body: {
      success: true,
      message:
        missing.length > 0
          ? `${message} Supply ${missing.join(', ')} with /settlement/parameters.`
          : instruction.status === 'WAITING_USER'
            ? `${message} Transfer the quantity to the deposit address before the instruction expires.`
            : message,
      payload: instruction,
    },
  };
}

export const setSettlementMethod: PartnerHandlerOf<'setSettlementMethod'> = async ({
  body,
  caller,
  db,
  now,
}) => {
  rejectNul(body);
  const request = body;
  const transaction = await visibleTransaction(
    db,
    caller,
    request.transaction_id,
    'transaction_id',
    true,
  );
  checkChangeable(transaction, 'transaction_id');
  const funding = request.direction === 'FUNDING';
  const asset = await requireAsset(
    db,
    funding ? transaction.funding_currency : transaction.payout_currency,
    'direction',
  );
  checkMethod(request.direction, request.method, asset, 'method');
  const required = requiredInputs(request.direction, request.method);
  await putInstruction(db, {
    transactionId: transaction.id,
    direction: request.direction,
    method: request.method,
    currency: asset.code,
    quantity: funding ? transaction.funding_quantity : transaction.payout_quantity,
    setup: setupParameters(request.direction, request.method, asset),
    required,
    received: acceptInputs(required, {}, request.input_parameters, 'input_parameters'),
    expiresAt: now + QUOTE_TTL_MS,
  });
  // A method is priced from a new quote, and the transaction's other instruction with it: this
  // is how a client whose instructions expired gets fresh ones.
  await db.query(
    `UPDATE qe_settlement_instructions SET expires_at = $2
      WHERE transaction_id = $1 AND expires_at IS NOT NULL`,
    [transaction.id, now + QUOTE_TTL_MS],
  );
  await settle(db, transaction.id, now);
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM qe_settlement_instructions WHERE transaction_id = $1 AND direction = $2',
    [transaction.id, request.direction],
  );
  const label = funding ? 'Funding' : 'Payout';
  return instructionReply(db, rows[0]?.id ?? '', `${label} method set.`);
};

export const setSettlementParameters: PartnerHandlerOf<'setSettlementParameters'> = async ({
  body,
  caller,
  db,
  now,
}) => {
  rejectNul(body);
  const request = body;
  const id = request.settlement_instruction_id;
  const named = zUuid.safeParse(id).success ? await findInstruction(db, id) : undefined;
  const notFoundHere = () => notFound('Settlement instruction', 'settlement_instruction_id');
  if (!named) throw notFoundHere();
  const transaction = await visibleTransaction(
    db,
    caller,
    named.transaction_id,
    'settlement_instruction_id',
    true,
  ).catch(() => {
    throw notFoundHere();
  });
  checkChangeable(transaction, 'settlement_instruction_id');
  await checkNotExpired(db, transaction.id, now);
  // Read again under the transaction's lock: a concurrent call may have replaced its method.
  const instruction = (await findInstruction(db, id)) as InstructionRow;
  const received = acceptInputs(
    instruction.required_input_parameters,
    instruction.received_input,
    request.input_parameters,
    'input_parameters',
  );
  await updateReceivedInput(db, instruction.id, received);
  await settle(db, transaction.id, now);
  return instructionReply(db, instruction.id, 'Settlement parameters accepted.');
};
