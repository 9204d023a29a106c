import type { components } from '@exchange-kit/contract/partner';

type Schemas = components['schemas'];

export type Direction = Schemas['SettlementDirection'];
export type Method = Schemas['SettlementMethod'];
export type InstructionStatus = Schemas['SettlementInstructionStatus'];
export type TransactionStatus = Schemas['TransactionStatus'];
export type InputParameters = Schemas['InputParameters'];
export type SetupParameters = Schemas['SettlementInstruction']['setup_parameters'];
export type RequiredInputs = Schemas['SettlementInstruction']['required_input_parameters'];
export type ReceivedInputs = Schemas['SettlementInstruction']['received_input'];
export type SettlementInstruction = Schemas['SettlementInstruction'];
export type Transaction = Schemas['Transaction'];
export type PartnerTransaction = Schemas['PartnerTransaction'];
export type Intent = Schemas['Intent'];
export type UserSession = Schemas['UserSession'];
