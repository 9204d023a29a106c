import { ExchangeState } from './exchange-state.js';
import { OneUseTokens } from './one-use-tokens.js';
import {
  type Instruction,
  type Intent,
  type PartnerApplication,
  type PartnerClock,
  PartnerState,
  type Session,
  type Transaction,
} from './partner-state.js';
import type {
  ApiTokenRecord,
  ClockOffset,
  Currency,
  Deposit,
  LedgerEntry,
  LeverageSetting,
  Loan,
  LoanBid,
  LoanBookLevel,
  MarkPrice,
  OAuthRequest,
  Product,
  User,
  Withdrawal,
} from './records.js';

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
 * The kinds of record a call stores whole, as it leaves them, besides the exchange's orders,
 * accounts, fills and positions (which the Journal tracks one by one for the book): each with
 * the key that names a record, and how a record is added to memory or dropped. `store/` maps
 * each kind to its table.
 */
export interface Records {
  oauthRequest: OAuthRequest;
  session: Session;
  intent: Intent;
  partnerClock: PartnerClock;
  transaction: Transaction;
  instruction: Instruction;
  ledgerEntry: LedgerEntry;
  withdrawal: Withdrawal;
  deposit: Deposit;
  loanBid: LoanBid;
  loan: Loan;
  leverageSetting: LeverageSetting;
  clockOffset: ClockOffset;
  markPrice: MarkPrice;
  // What a sandbox is given rather than asks for (`seeding.ts`, `demo-seed.ts`): added,
  // never changed.
  currency: Currency;
  loanBookLevel: LoanBookLevel;
  user: User;
  apiToken: ApiTokenRecord;
  product: Product;
  partnerApplication: PartnerApplication;
}

export type RecordKind = keyof Records;

interface RecordKeeping<Row> {
  key(row: Row): string;
  add(state: SandboxState, row: Row): void;
  drop(state: SandboxState, row: Row): void;
  /**
   * Lets memory go of the row once a batch stored it, when the store keeps history and answers
   * for it from then on; a kind without one stays in memory.
   */
  forget?(state: SandboxState, row: Row): void;
}

export const recordKinds: { [Kind in RecordKind]: RecordKeeping<Records[Kind]> } = {
  oauthRequest: {
    key: (row) => row.publicId,
    add: (state, row) => state.exchange.addOAuthRequest(row),
    drop: (state, row) => state.exchange.dropOAuthRequest(row),
  },
  session: {
    key: (row) => row.id,
    add: (state, row) => state.partner.addSession(row),
    drop: (state, row) => state.partner.dropSession(row),
  },
  intent: {
    key: (row) => row.id,
    add: (state, row) => state.partner.addIntent(row),
    drop: (state, row) => state.partner.dropIntent(row),
  },
  partnerClock: {
    key: (row) => String(row.partnerId),
    add: (state, row) => state.partner.addClock(row),
    drop: (state, row) => state.partner.dropClock(row),
  },
  transaction: {
    key: (row) => row.id,
    add: (state, row) => state.partner.addTransaction(row),
    drop: (state, row) => state.partner.dropTransaction(row),
  },
  instruction: {
    key: (row) => row.id,
    add: (state, row) => state.partner.addInstruction(row),
    drop: (state, row) => state.partner.dropInstruction(row),
  },
  ledgerEntry: {
    key: (row) => String(row.id),
    add: (state, row) => state.exchange.addEntry(row),
    drop: (state, row) => state.exchange.dropEntry(row),
    forget: (state, row) => state.exchange.dropEntry(row),
  },
  withdrawal: {
    key: (row) => String(row.id),
    add: (state, row) => state.exchange.addWithdrawal(row),
    drop: (state, row) => state.exchange.dropWithdrawal(row),
    forget: (state, row) => state.exchange.forgetWithdrawal(row),
  },
  deposit: {
    key: (row) => String(row.id),
    add: (state, row) => state.exchange.addDeposit(row),
    drop: (state, row) => state.exchange.dropDeposit(row),
    forget: (state, row) => state.exchange.forgetDeposit(row),
  },
  loanBid: {
    key: (row) => String(row.id),
    add: (state, row) => state.exchange.loanBids.set(row.id, row),
    drop: (state, row) => state.exchange.loanBids.delete(row.id),
    forget: (state, row) => state.exchange.forgetLoanBid(row),
  },
  loan: {
    key: (row) => String(row.id),
    add: (state, row) => state.exchange.addLoan(row),
    // Dropped only as the call that opened it is refused: its places are given back.
    drop: (state, row) => {
      state.exchange.dropLoan(row);
      state.exchange.unplaceLoan(row);
    },
  },
  leverageSetting: {
    key: (row) => String(row.tradingAccountId),
    add: (state, row) => state.exchange.leverageSettings.set(row.tradingAccountId, row),
    drop: (state, row) => state.exchange.leverageSettings.delete(row.tradingAccountId),
  },
  clockOffset: {
    key: () => 'clock',
    add: (state, row) => {
      state.exchange.clockOffset = row;
    },
    drop: (state) => {
      state.exchange.clockOffset = undefined;
    },
  },
  markPrice: {
    key: (row) => String(row.productId),
    add: (state, row) => state.exchange.marks.set(row.productId, row),
    drop: (state, row) => state.exchange.marks.delete(row.productId),
  },
  currency: {
    key: (row) => row.code,
    add: (state, row) => state.exchange.currencies.set(row.code, row),
    drop: (state, row) => state.exchange.currencies.delete(row.code),
  },
  loanBookLevel: {
    key: (row) => `${row.currency}:${row.side}:${row.rate}`,
    add: (state, row) => state.exchange.addLoanLevel(row),
    drop: (state, row) => state.exchange.dropLoanLevel(row),
  },
  user: {
    key: (row) => String(row.id),
    add: (state, row) => state.exchange.users.set(row.id, row),
    drop: (state, row) => state.exchange.users.delete(row.id),
  },
  apiToken: {
    key: (row) => row.id,
    add: (state, { id, userId, secret }) => state.exchange.tokens.set(id, { userId, secret }),
    drop: (state, row) => state.exchange.tokens.delete(row.id),
  },
  product: {
    key: (row) => String(row.id),
    add: (state, row) => state.exchange.products.set(row.id, row),
    drop: (state, row) => state.exchange.products.delete(row.id),
  },
  partnerApplication: {
    key: (row) => String(row.id),
    add: (state, row) => state.partner.addApplication(row),
    drop: (state, row) => state.partner.dropApplication(row),
  },
};

/** The kinds of record that are history: a call adds them, and none changes them after. */
export const historyKinds = ['ledgerEntry'] as const satisfies readonly RecordKind[];

export type HistoryKind = (typeof historyKinds)[number];

/**
 * The kinds orders, accounts and the other records name: stored before them, parents first.
 */
export const ownerKindOrder: readonly RecordKind[] = [
  'currency',
  'loanBookLevel',
  'user',
  'apiToken',
  'product',
  'partnerApplication',
];

/** The order records of different kinds are stored in: a record after the records it names. */
export const recordKindOrder: readonly RecordKind[] = [
  'oauthRequest',
  'session',
  'intent',
  'partnerClock',
  'transaction',
  'instruction',
  'ledgerEntry',
  'withdrawal',
  'deposit',
  'loanBid',
  'leverageSetting',
  'loan',
  'clockOffset',
  'markPrice',
];
