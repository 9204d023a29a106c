/** Settlement instructions: rendering, and the status moves of a transaction. */
import { randomUUID } from 'node:crypto';
import type {
  SettlementDirection as Direction,
  SettlementMethod as Method,
  SettlementInstruction,
  TransactionStatus,
} from '@exchange-kit/contract/partner';
import type { Journal } from '../state/journal.js';
import type { Instruction } from '../state/partner-state.js';
import { instructionState, missingInputNames } from './methods.js';
import { QUOTE_TTL_MS } from './quotes.js';
import type { ReceivedInputs, RequiredInputs, SetupParameters } from './schema-types.js';

export function renderInstruction(row: Instruction): SettlementInstruction {
  const instruction: SettlementInstruction = {
    settlement_instruction_id: row.id,
    transaction_id: row.transactionId,
    currency: row.currency,
    direction: row.direction,
    method: row.method,
    quantity: row.quantity,
    status: row.status,
    setup_parameters: row.setupParameters,
    required_input_parameters: row.requiredInputParameters,
    received_input: row.receivedInput,
  };
  if (row.expiresAt !== null) {
    instruction.expires = {
      unix_ms: row.expiresAt,
      iso8601: new Date(row.expiresAt).toISOString(),
      ttl_ms: QUOTE_TTL_MS,
    };
  }
  return instruction;
}

export interface InstructionInput {
  transactionId: string;
  direction: Direction;
  method: Method;
  currency: string;
  quantity: string;
  setup: SetupParameters;
  required: RequiredInputs;
  received: ReceivedInputs;
  /** When the quote this instruction is priced from expires. */
  expiresAt: number;
}

/**
 * Creates the instruction of a direction, or replaces its method and input in place so that the
 * settlement_instruction_id a client already holds stays valid. Its status is set by settle().
 */
export function putInstruction(journal: Journal, input: InstructionInput): Instruction {
  const existing = journal.partner
    .instructionsOf(input.transactionId)
    .find((instruction) => instruction.direction === input.direction);
  if (existing) {
    return Object.assign(journal.touch('instruction', existing), {
      method: input.method,
      expiresAt: input.expiresAt,
      setupParameters: input.setup,
      requiredInputParameters: input.required,
      receivedInput: input.received,
    });
  }
  return journal.add('instruction', {
    id: randomUUID(),
    transactionId: input.transactionId,
    direction: input.direction,
    method: input.method,
    currency: input.currency,
    quantity: input.quantity,
    status: 'NOT_STARTED',
    expiresAt: input.expiresAt,
    setupParameters: input.setup,
    requiredInputParameters: input.required,
    receivedInput: input.received,
  });
}

/**
 * Moves a transaction and its instructions to the status their methods and input call for:
 * a direction without a method keeps it at SETTLEMENT_METHOD_REQUIRED, a missing required
 * parameter at SETTLEMENT_PARAMETERS_REQUIRED, and otherwise it is PENDING.
 */
export function settle(journal: Journal, transactionId: string, now: number): TransactionStatus {
  const transaction = journal.partner.transactions.get(transactionId);
  if (!transaction) throw new Error(`No transaction ${transactionId} to settle`);
  const facts = journal.partner.instructionsOf(transactionId).map((row) => ({
    row,
    missing: missingInputNames(row.requiredInputParameters, row.receivedInput).length > 0,
  }));
  const status: TransactionStatus =
    facts.length < 2
      ? 'SETTLEMENT_METHOD_REQUIRED'
      : facts.some((fact) => fact.missing)
        ? 'SETTLEMENT_PARAMETERS_REQUIRED'
        : 'PENDING';
  const fundingWaitsForUser = facts.some(
    ({ row, missing }) =>
      row.direction === 'FUNDING' && row.method === 'BLOCKCHAIN_TRANSFER' && !missing,
  );
  for (const { row, missing } of facts) {
    const state = instructionState(
      { direction: row.direction, method: row.method, missing },
      status === 'PENDING',
      fundingWaitsForUser,
    );
    const instruction = journal.touch('instruction', row);
    instruction.status = state.status;
    if (!state.expires) instruction.expiresAt = null;
  }
  const moved = journal.touch('transaction', transaction);
  moved.status = status;
  moved.pendingSince = status === 'PENDING' ? now : null;
  journal.partner.watchPending(transaction);
  return status;
}
