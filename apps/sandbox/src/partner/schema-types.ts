import type { SettlementInstruction } from '@exchange-kit/contract/partner';

/** Parts of an instruction the settlement rules take apart, named once. */
export type SetupParameters = SettlementInstruction['setup_parameters'];
export type RequiredInputs = SettlementInstruction['required_input_parameters'];
export type ReceivedInputs = SettlementInstruction['received_input'];
