/** Settlement instructions: storage, rendering, and the status moves of a transaction. */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../domain/queryable.js';
import { instructionState, missingInputs } from './methods.js';
import { QUOTE_TTL_MS } from './quotes.js';
import type {
  Direction,
  InstructionStatus,
  Method,
  ReceivedInputs,
  RequiredInputs,
  SettlementInstruction,
  SetupParameters,
  TransactionStatus,
} from './schema-types.js';

export interface InstructionRow {
  id: string;
  transaction_id: string;
  direction: Direction;
  method: Method;
  currency: string;
  quantity: string;
  status: InstructionStatus;
  expires_at: string | number | null;
  setup_parameters: SetupParameters;
  required_input_parameters: RequiredInputs;
  received_input: ReceivedInputs;
}

const columns = `id, transaction_id, direction, method, currency, quantity::text AS quantity, status,
  expires_at, setup_parameters, required_input_parameters, received_input`;

export function renderInstruction(row: InstructionRow): SettlementInstruction {
  const instruction: SettlementInstruction = {
    settlement_instruction_id: row.id,
    transaction_id: row.transaction_id,
    currency: row.currency,
    direction: row.direction,
    method: row.method,
    quantity: row.quantity,
    status: row.status,
    setup_parameters: row.setup_parameters,
    required_input_parameters: row.required_input_parameters,
    received_input: row.received_input,
  };
  if (row.expires_at !== null) {
    const unixMs = Number(row.expires_at);
    instruction.expires = {
      unix_ms: unixMs,
      iso8601: new Date(unixMs).toISOString(),
      ttl_ms: QUOTE_TTL_MS,
    };
  }
  return instruction;
}

export async function findInstruction(
  db: Queryable,
  id: string,
): Promise<InstructionRow | undefined> {
  const { rows } = await db.query<InstructionRow>(
    `SELECT ${columns} FROM qe_settlement_instructions WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** The instructions of some transactions, in one query. */
export async function instructionsOf(
  db: Queryable,
  transactionIds: string[],
): Promise<Map<string, InstructionRow[]>> {
  const byTransaction = new Map<string, InstructionRow[]>();
  if (transactionIds.length === 0) return byTransaction;
  const { rows } = await db.query<InstructionRow>(
    `SELECT ${columns} FROM qe_settlement_instructions
      WHERE transaction_id = ANY($1::uuid[]) ORDER BY direction`,
    [transactionIds],
  );
  for (const row of rows) {
    const list = byTransaction.get(row.transaction_id) ?? [];
    list.push(row);
    byTransaction.set(row.transaction_id, list);
  }
  return byTransaction;
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
export async function putInstruction(db: Queryable, input: InstructionInput): Promise<void> {
  await db.query(
    `INSERT INTO qe_settlement_instructions (id, transaction_id, direction, method, currency,
       quantity, status, expires_at, setup_parameters, required_input_parameters, received_input)
     VALUES ($1, $2, $3, $4, $5, $6::numeric, 'NOT_STARTED', $7, $8::jsonb, $9::jsonb, $10::jsonb)
     ON CONFLICT (transaction_id, direction) DO UPDATE SET
       method = EXCLUDED.method, expires_at = EXCLUDED.expires_at,
       setup_parameters = EXCLUDED.setup_parameters,
       required_input_parameters = EXCLUDED.required_input_parameters,
       received_input = EXCLUDED.received_input`,
    [
      randomUUID(),
      input.transactionId,
      input.direction,
      input.method,
      input.currency,
      input.quantity,
      input.expiresAt,
      JSON.stringify(input.setup),
      JSON.stringify(input.required),
      JSON.stringify(input.received),
    ],
  );
}

export async function updateReceivedInput(
  db: Queryable,
  id: string,
  received: ReceivedInputs,
): Promise<void> {
  await db.query('UPDATE qe_settlement_instructions SET received_input = $2::jsonb WHERE id = $1', [
    id,
    JSON.stringify(received),
  ]);
}

/**
 * Moves a transaction and its instructions to the status their methods and input call for:
 * a direction without a method keeps it at SETTLEMENT_METHOD_REQUIRED, a missing required
 * parameter at SETTLEMENT_PARAMETERS_REQUIRED, and otherwise it is PENDING.
 */
export async function settle(
  db: Queryable,
  transactionId: string,
  now: number,
): Promise<TransactionStatus> {
  const instructions = (await instructionsOf(db, [transactionId])).get(transactionId) ?? [];
  const facts = instructions.map((row) => ({
    row,
    missing: missingInputs(row.required_input_parameters, row.received_input).length > 0,
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
    await db.query(
      `UPDATE qe_settlement_instructions
          SET status = $2, expires_at = CASE WHEN $3::boolean THEN expires_at END
        WHERE id = $1`,
      [row.id, state.status, state.expires],
    );
  }
  await db.query(
    `UPDATE qe_transactions
        SET status = $2, pending_since = CASE WHEN $2::text = 'PENDING' THEN $3::bigint END
      WHERE id = $1`,
    [transactionId, status, now],
  );
  return status;
}
