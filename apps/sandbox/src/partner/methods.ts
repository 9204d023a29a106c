/**
 * What each settlement method means for an instruction: whether it may settle a direction and
 * currency, what the service sets up for it, what it needs from the user, and which status it is
 * in as the transaction moves on.
 */

import type {
  SettlementDirection as Direction,
  InputParameters,
  SettlementInstructionStatus as InstructionStatus,
  SettlementMethod as Method,
} from '@exchange-kit/contract/partner';
import { invalid } from './errors.js';
import type { Asset } from './quotes.js';
import type { ReceivedInputs, RequiredInputs, SetupParameters } from './schema-types.js';

const onChain = (method: Method) => method !== 'SERVICE_PARTNER_WALLET';

/** The request field a direction's settlement is given in. */
export const settlementField = (direction: Direction) =>
  direction === 'FUNDING' ? 'funding_settlement' : 'payout_settlement';

/**
 * Refuses a method that cannot settle this direction and currency: a delegated broadcast is a
 * transaction the user signs, so it can only pay in; a fiat currency cannot move on chain.
 */
export function checkMethod(
  direction: Direction,
  method: Method,
  asset: Asset,
  field: string,
): void {
  if (direction === 'PAYOUT' && method === 'BLOCKCHAIN_DELEGATED_BROADCAST') {
    throw invalid(field, 'not_allowed_for_payout', `${method} cannot settle a payout`);
  }
  if (onChain(method) && asset.kind !== 'crypto') {
    throw invalid(field, 'not_allowed_for_currency', `${method} cannot settle ${asset.code}`);
  }
}

/** On-chain funding is paid into the service's deposit address of the currency. */
export function setupParameters(
  direction: Direction,
  method: Method,
  asset: Asset,
): SetupParameters {
  if (direction !== 'FUNDING' || !onChain(method) || !asset.depositAddress) return {};
  return {
    account_key: { type: 'WALLET_ADDRESS', label: 'Deposit address', value: asset.depositAddress },
  };
}

/**
 * A delegated broadcast needs the signed raw transaction the service broadcasts; an on-chain
 * payout needs the wallet address to pay to.
 */
export function requiredInputs(direction: Direction, method: Method): RequiredInputs {
  if (direction === 'FUNDING' && method === 'BLOCKCHAIN_DELEGATED_BROADCAST') {
    return { transaction_key: { type: 'SIGNED_RAW_TRANSACTION', required: true } };
  }
  if (direction === 'PAYOUT' && method === 'BLOCKCHAIN_TRANSFER') {
    return { account_key: { type: 'WALLET_ADDRESS', required: true } };
  }
  return {};
}

/**
 * Merges supplied input into what was received so far. Only parameters the method asks for are
 * accepted, with the type it asks for, so that received_input never echoes something ignored.
 */
export function acceptInputs(
  required: RequiredInputs,
  received: ReceivedInputs,
  input: InputParameters | undefined,
  field: string,
): ReceivedInputs {
  const merged: ReceivedInputs = { ...received };
  for (const [name, parameter] of Object.entries(input ?? {})) {
    const wanted = required[name];
    const where = `${field}.${name}`;
    if (!wanted)
      throw invalid(where, 'unknown_parameter', `${name} is not a parameter of this method`);
    if (parameter.type !== wanted.type) {
      throw invalid(where, 'wrong_type', `${name} must be of type ${wanted.type}`);
    }
    if (parameter.value.trim() === '') throw invalid(where, 'blank', `${name} must not be blank`);
    merged[name] = { type: parameter.type, value: parameter.value };
  }
  return merged;
}

/** The names of the inputs an instruction requires and has not received yet. */
export function missingInputNames(required: RequiredInputs, received: ReceivedInputs): string[] {
  return Object.entries(required)
    .filter(([name, parameter]) => parameter.required && !received[name])
    .map(([name]) => name);
}

export interface InstructionState {
  status: InstructionStatus;
  /** Whether the instruction still runs against the quote's expiry. */
  expires: boolean;
}

/**
 * Status of an instruction. Until the transaction is PENDING every instruction waits on its own
 * quote expiry; an on-chain transfer in waits for the user to pay in before it expires, and the
 * payout of such a transaction does not start until then. Everything else is in progress.
 */
export function instructionState(
  instruction: { direction: Direction; method: Method; missing: boolean },
  transactionPending: boolean,
  fundingWaitsForUser: boolean,
): InstructionState {
  if (instruction.missing) return { status: 'PARAMETERS_REQUIRED', expires: true };
  const waitsForUser =
    instruction.direction === 'FUNDING' && instruction.method === 'BLOCKCHAIN_TRANSFER';
  if (waitsForUser) return { status: 'WAITING_USER', expires: true };
  if (!transactionPending) return { status: 'NOT_STARTED', expires: true };
  if (instruction.direction === 'PAYOUT' && fundingWaitsForUser) {
    return { status: 'NOT_STARTED', expires: false };
  }
  return { status: 'PENDING', expires: false };
}
