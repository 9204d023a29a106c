/** Choosing a settlement method and supplying its parameters after the transaction exists. */
import { canonicalUuid } from '../handling/ids.js';
import type { Caller, PartnerHandlerOf } from '../handling/operation.js';
import type { Instruction, PartnerState, Transaction } from '../state/partner-state.js';
import { invalid, notFound } from './errors.js';
import { putInstruction, renderInstruction, settle } from './instructions.js';
import {
  acceptInputs,
  checkMethod,
  missingInputNames,
  requiredInputs,
  setupParameters,
} from './methods.js';
import { QUOTE_TTL_MS, requireAsset } from './quotes.js';

/**
 * The transaction a call acts on. A session token may only act on its own session's
 * transactions; another session's transaction is reported as absent.
 */
export function visibleTransaction(
  state: PartnerState,
  caller: Caller,
  id: string,
  field: string,
): Transaction {
  const key = canonicalUuid(id);
  const transaction = key === undefined ? undefined : state.transactions.get(key);
  if (!transaction || (caller.kind === 'session' && caller.sessionId !== transaction.sessionId)) {
    throw notFound('Transaction', field);
  }
  return transaction;
}

/** Once settlement is under way its instructions are no longer the client's to change. */
function checkChangeable(transaction: Transaction, field: string): void {
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
function checkNotExpired(state: PartnerState, transactionId: string, now: number): void {
  const expired = state
    .instructionsOf(transactionId)
    .flatMap((instruction) =>
      instruction.expiresAt !== null && instruction.expiresAt <= now ? [instruction.expiresAt] : [],
    )
    .sort((a, b) => a - b)[0];
  if (expired !== undefined) {
    throw invalid(
      'settlement_instruction_id',
      'expired',
      `The settlement instructions expired at ${new Date(expired).toISOString()}; set the settlement method again for a fresh quote`,
    );
  }
}

function instructionReply(row: Instruction, message: string) {
  const instruction = renderInstruction(row);
  const missing = missingInputNames(
    instruction.required_input_parameters,
    instruction.received_input,
  );
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

export const setSettlementMethod: PartnerHandlerOf<'setSettlementMethod'> = ({
  body,
  caller,
  journal,
  now,
}) => {
  const request = body;
  const state = journal.partner;
  const transaction = visibleTransaction(state, caller, request.transaction_id, 'transaction_id');
  checkChangeable(transaction, 'transaction_id');
  const funding = request.direction === 'FUNDING';
  const asset = requireAsset(
    state,
    funding ? transaction.fundingCurrency : transaction.payoutCurrency,
    'direction',
  );
  checkMethod(request.direction, request.method, asset, 'method');
  const required = requiredInputs(request.direction, request.method);
  const instruction = putInstruction(journal, {
    transactionId: transaction.id,
    direction: request.direction,
    method: request.method,
    currency: asset.code,
    quantity: funding ? transaction.fundingQuantity : transaction.payoutQuantity,
    setup: setupParameters(request.direction, request.method, asset),
    required,
    received: acceptInputs(required, {}, request.input_parameters, 'input_parameters'),
    expiresAt: now + QUOTE_TTL_MS,
  });
  // A method is priced from a new quote, and the transaction's other instruction with it: this
  // is how a client whose instructions expired gets fresh ones.
  for (const other of state.instructionsOf(transaction.id)) {
    if (other.expiresAt === null) continue;
    journal.touch('instruction', other).expiresAt = now + QUOTE_TTL_MS;
  }
  settle(journal, transaction.id, now);
  const label = funding ? 'Funding' : 'Payout';
  return instructionReply(instruction, `${label} method set.`);
};

export const setSettlementParameters: PartnerHandlerOf<'setSettlementParameters'> = ({
  body,
  caller,
  journal,
  now,
}) => {
  const request = body;
  const state = journal.partner;
  const id = request.settlement_instruction_id;
  const key = canonicalUuid(id);
  const instruction = key === undefined ? undefined : state.instructions.get(key);
  const notFoundHere = () => notFound('Settlement instruction', 'settlement_instruction_id');
  if (!instruction) throw notFoundHere();
  let transaction: Transaction;
  try {
    transaction = visibleTransaction(
      state,
      caller,
      instruction.transactionId,
      'settlement_instruction_id',
    );
  } catch {
    throw notFoundHere();
  }
  checkChangeable(transaction, 'settlement_instruction_id');
  checkNotExpired(state, transaction.id, now);
  const received = acceptInputs(
    instruction.requiredInputParameters,
    instruction.receivedInput,
    request.input_parameters,
    'input_parameters',
  );
  journal.touch('instruction', instruction).receivedInput = received;
  settle(journal, transaction.id, now);
  return instructionReply(instruction, 'Settlement parameters accepted.');
};
