import type { components } from '@exchange-kit/contract/partner';

type Schemas = components['schemas'];
type Transaction = Schemas['Transaction'];
type SettlementInstruction = Schemas['SettlementInstruction'];
type ParameterType = Schemas['ParameterType'];

/** Narrows a transaction by its status: `if (hasStatus(tx, 'PENDING')) ...`. */
export function hasStatus<S extends Transaction['status']>(
  transaction: Transaction,
  ...statuses: S[]
): transaction is Transaction & { status: S } {
  return (statuses as Transaction['status'][]).includes(transaction.status);
}

/** A parameter an instruction still needs before it can go on. */
export interface MissingInput {
  name: string;
  type: ParameterType;
}

/** What an instruction still requires: required inputs it has not received yet. */
export function missingInputs(instruction: SettlementInstruction): MissingInput[] {
  const received = instruction.received_input ?? {};
  return Object.entries(instruction.required_input_parameters ?? {})
    .filter(([name, parameter]) => parameter.required && !(name in received))
    .map(([name, parameter]) => ({ name, type: parameter.type }));
}

/** Milliseconds left before the instruction expires (0 once it has); undefined when it does not. */
export function expiresInMs(
  instruction: SettlementInstruction,
  now: number = Date.now(),
): number | undefined {
  const expires = instruction.expires?.unix_ms;
  return expires === undefined ? undefined : Math.max(0, expires - now);
}
