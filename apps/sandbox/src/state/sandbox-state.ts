import { ExchangeState, type OAuthRequest } from './exchange-state.js';
import { OneUseTokens } from './one-use-tokens.js';
import {
  type Instruction,
  type Intent,
  type PartnerClock,
  PartnerState,
  type Session,
  type Transaction,
} from './partner-state.js';

/**
 * The sandbox as it stands: the exchange, Quick Exchange, and the last nonce spent in each
 * scope ("token:<id>", "session:<id>", and "iat:token:<id>" for the last `iat` of a JWT
 * without nonce) that authenticates calls to either. Loaded from the store at start and kept
 * in step with it: every call is decided here, in memory and one at a time, and its changes
 * are written to the store with its batch (see Journal, Sequencer) before it is answered. The
 * store stays the record; memory makes the decision cheap.
 */
export class SandboxState {
  readonly nonces = new Map<string, bigint>();
  /**
   * X-Service-Auth JWTs without nonce seen within their window: each places one order. Kept
   * in memory, and carried over when the state is read again from the store.
   */
  oneUseTokens = new OneUseTokens();

  constructor(
    readonly exchange = new ExchangeState(),
    readonly partner = new PartnerState(),
  ) {}
}

/**
 * The tables whose rows a call stores whole, as it leaves them, besides the exchange's
 * orders, accounts, fills and positions (which the Journal tracks field by field for the
 * book): each with the key that names a row, and how a row is added to memory or dropped.
 */
export interface RecordTables {
  oauth_requests: OAuthRequest;
  qe_sessions: Session;
  qe_intents: Intent;
  qe_partner_clocks: PartnerClock;
  qe_transactions: Transaction;
  qe_settlement_instructions: Instruction;
}

export type RecordTable = keyof RecordTables;

interface RecordKind<Row> {
  key(row: Row): string;
  add(state: SandboxState, row: Row): void;
  drop(state: SandboxState, row: Row): void;
}

export const recordKinds: { [Table in RecordTable]: RecordKind<RecordTables[Table]> } = {
  oauth_requests: {
    key: (row) => row.publicId,
    add: (state, row) => state.exchange.addOAuthRequest(row),
    drop: (state, row) => state.exchange.dropOAuthRequest(row),
  },
  qe_sessions: {
    key: (row) => row.id,
    add: (state, row) => state.partner.addSession(row),
    drop: (state, row) => state.partner.dropSession(row),
  },
  qe_intents: {
    key: (row) => row.id,
    add: (state, row) => state.partner.addIntent(row),
    drop: (state, row) => state.partner.dropIntent(row),
  },
  qe_partner_clocks: {
    key: (row) => String(row.partnerId),
    add: (state, row) => state.partner.addClock(row),
    drop: (state, row) => state.partner.dropClock(row),
  },
  qe_transactions: {
    key: (row) => row.id,
    add: (state, row) => state.partner.addTransaction(row),
    drop: (state, row) => state.partner.dropTransaction(row),
  },
  qe_settlement_instructions: {
    key: (row) => row.id,
    add: (state, row) => state.partner.addInstruction(row),
    drop: (state, row) => state.partner.dropInstruction(row),
  },
};

/** The order rows of different tables are written in: a row after the rows it names. */
export const recordTableOrder: readonly RecordTable[] = [
  'oauth_requests',
  'qe_sessions',
  'qe_intents',
  'qe_partner_clocks',
  'qe_transactions',
  'qe_settlement_instructions',
];
