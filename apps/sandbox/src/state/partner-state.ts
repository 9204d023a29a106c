import type {
  components,
  SettlementDirection as Direction,
  SettlementMethod as Method,
} from '@exchange-kit/contract/partner';
import type { D } from './records.js';

type Schemas = components['schemas'];

/** A partner application: a user of the exchange offering Quick Exchange under a public key. */
export interface PartnerApplication {
  readonly id: number;
  readonly userId: number;
  readonly publicApiKey: string;
  readonly name: string;
}

/** An asset Quick Exchange settles. */
export interface Asset {
  readonly code: string;
  readonly kind: 'crypto' | 'fiat';
  readonly precision: number;
  /** Where users pay in for blockchain funding; null for fiat. */
  readonly depositAddress: string | null;
}

/** The price of one unit of `base` in `quote`; a pair is kept in one orientation only. */
export interface Price {
  readonly base: string;
  readonly quote: string;
  readonly price: D;
}

export interface Session {
  readonly id: string;
  readonly partnerId: number;
  /** Verifies the session's Bearer JWTs (HS256), so it is kept as issued. */
  readonly secret: string;
  readonly suggestedCountry: string;
  readonly defaultTransaction: Schemas['UserSession']['default_transaction'];
  readonly widgetConfiguration: Schemas['UserSession']['widget_configuration'] | null;
  readonly userLocale: string | null;
  readonly ancestorOrigins: string | null;
  readonly createdAt: number;
}

export interface Intent {
  readonly id: string;
  readonly partnerId: number;
  readonly strategy: Schemas['Intent']['strategy'];
  readonly payoutMethod: Method;
  readonly payoutCurrency: string;
  /** Decimal strings as given; exactly one side fixes a quantity. */
  readonly payoutQuantity: string | null;
  readonly fundingMethod: Method | null;
  readonly fundingCurrency: string | null;
  readonly fundingQuantity: string | null;
  readonly partnerOrderId: string | null;
  readonly partnerRef: string | null;
  readonly partnerTags: string[] | null;
  readonly expiresAt: number | null;
  readonly createdAt: number;
  /** Set by the first attempt of a ONE_TO_ONE_ATTEMPTED intent. */
  readonly consumedAt: number | null;
}

export interface Transaction {
  readonly id: string;
  readonly partnerId: number;
  readonly sessionId: string;
  readonly intentId: string | null;
  readonly clientRef: string | null;
  readonly apiKey: string | null;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly fundingCurrency: string;
  readonly fundingQuantity: string;
  readonly payoutCurrency: string;
  readonly payoutQuantity: string;
  readonly quoteId: string | null;
  readonly quotedAt: number;
  readonly status: Schemas['TransactionStatus'];
  readonly partnerOrderId: string | null;
  readonly partnerRef: string | null;
  readonly partnerTags: string[] | null;
  /** Unique per partner: the listing pages by it. */
  readonly createdAt: number;
  /** When its settlements started (it became PENDING). */
  readonly pendingSince: number | null;
}

export interface Instruction {
  readonly id: string;
  readonly transactionId: string;
  readonly direction: Direction;
  readonly method: Method;
  readonly currency: string;
  readonly quantity: string;
  readonly status: Schemas['SettlementInstructionStatus'];
  readonly expiresAt: number | null;
  readonly setupParameters: Schemas['SettlementInstruction']['setup_parameters'];
  readonly requiredInputParameters: Schemas['SettlementInstruction']['required_input_parameters'];
  readonly receivedInput: Schemas['SettlementInstruction']['received_input'];
}

/** The last created_at handed out to a partner's transactions. */
export interface PartnerClock {
  readonly partnerId: number;
  readonly lastCreatedAt: number;
}

/**
 * Quick Exchange as it stands: partner applications, assets and prices, and every session,
 * transaction and settlement instruction, with the indexes the partner calls look them up
 * by. Of the intents, the most numerous rows, it holds those made since the start and those
 * a call has named (read in by the Sequencer before the call is decided; see
 * `partnerStoredReads`). Rows are added and dropped here; a call changes them through its
 * Journal.
 */
export class PartnerState {
  applications = new Map<number, PartnerApplication>();
  applicationsByKey = new Map<string, PartnerApplication>();
  assets = new Map<string, Asset>();
  prices: Price[] = [];
  sessions = new Map<string, Session>();
  /** The intents made since the start or read in for a call that named them. */
  intents = new Map<string, Intent>();
  /**
   * The id of every intent, in memory or only in the store, once the store's are read: an id
   * not here is then refused without reading the store, so a caller naming made-up ids holds
   * nobody back.
   */
  readonly #intentIds = new Set<string>();
  #storedIntentIdsRead = false;
  transactions = new Map<string, Transaction>();
  /** Each partner's transactions in created_at order, which is their listing order. */
  transactionsByPartner = new Map<number, Transaction[]>();
  readonly #byClientRef = new Map<string, Transaction>();
  instructions = new Map<string, Instruction>();
  readonly #instructionsOf = new Map<string, Instruction[]>();
  clocks = new Map<number, PartnerClock>();
  /**
   * The transactions that were PENDING when last seen: where settlements are completed from,
   * so a call does not look through every transaction ever made. One that has left PENDING
   * is dropped the next time it is looked at, not when it leaves: an undo may bring it back.
   */
  readonly #maybePending = new Set<Transaction>();

  addApplication(application: PartnerApplication): void {
    this.applications.set(application.id, application);
    this.applicationsByKey.set(application.publicApiKey, application);
  }

  dropApplication(application: PartnerApplication): void {
    this.applications.delete(application.id);
    this.applicationsByKey.delete(application.publicApiKey);
  }

  /** The applications of `userId`, oldest first. */
  applicationsOf(userId: number): PartnerApplication[] {
    return [...this.applications.values()]
      .filter((application) => application.userId === userId)
      .sort((a, b) => a.id - b.id);
  }

  /** The price linking two assets, whichever way it is kept. */
  price(a: string, b: string): Price | undefined {
    return this.prices.find(
      (price) => (price.base === a && price.quote === b) || (price.base === b && price.quote === a),
    );
  }

  addSession(session: Session): void {
    this.sessions.set(session.id, session);
  }

  dropSession(session: Session): void {
    this.sessions.delete(session.id);
  }

  addIntent(intent: Intent): void {
    this.intents.set(intent.id, intent);
    this.#intentIds.add(intent.id);
  }

  /** The id of every intent the store holds, read after the start (see Sequencer). */
  addStoredIntentIds(ids: readonly string[]): void {
    for (const id of ids) this.#intentIds.add(id);
    this.#storedIntentIdsRead = true;
  }

  /** False only when no intent of this id exists, in memory or in the store. */
  mayHoldIntent(id: string): boolean {
    return !this.#storedIntentIdsRead || this.#intentIds.has(id);
  }

  /** Only an undone creation drops an intent: it never existed. */
  dropIntent(intent: Intent): void {
    this.intents.delete(intent.id);
    this.#intentIds.delete(intent.id);
  }

  addTransaction(transaction: Transaction): void {
    this.transactions.set(transaction.id, transaction);
    this.watchPending(transaction);
    const own = this.transactionsByPartner.get(transaction.partnerId) ?? [];
    own.push(transaction);
    // Kept in created_at order: a transaction loaded or added out of order finds its place.
    if (own.length > 1 && (own.at(-2) as Transaction).createdAt > transaction.createdAt) {
      own.sort((a, b) => a.createdAt - b.createdAt);
    }
    this.transactionsByPartner.set(transaction.partnerId, own);
    if (transaction.clientRef !== null) {
      this.#byClientRef.set(clientKey(transaction.partnerId, transaction.clientRef), transaction);
    }
  }

  dropTransaction(transaction: Transaction): void {
    this.transactions.delete(transaction.id);
    this.#maybePending.delete(transaction);
    const own = this.transactionsByPartner.get(transaction.partnerId);
    own?.splice(own.indexOf(transaction), 1);
    if (transaction.clientRef !== null) {
      this.#byClientRef.delete(clientKey(transaction.partnerId, transaction.clientRef));
    }
  }

  /** Call once a transaction's status may have become PENDING. */
  watchPending(transaction: Transaction): void {
    if (transaction.status === 'PENDING') this.#maybePending.add(transaction);
  }

  /** The PENDING transactions. */
  *pending(): Generator<Transaction> {
    for (const transaction of this.#maybePending) {
      if (
        transaction.status === 'PENDING' &&
        this.transactions.get(transaction.id) === transaction
      ) {
        yield transaction;
      } else {
        this.#maybePending.delete(transaction);
      }
    }
  }

  transactionByClientRef(partnerId: number, clientRef: string): Transaction | undefined {
    return this.#byClientRef.get(clientKey(partnerId, clientRef));
  }

  addInstruction(instruction: Instruction): void {
    this.instructions.set(instruction.id, instruction);
    const own = this.#instructionsOf.get(instruction.transactionId) ?? [];
    own.push(instruction);
    // FUNDING before PAYOUT, as the transaction renders them.
    own.sort((a, b) => a.direction.localeCompare(b.direction));
    this.#instructionsOf.set(instruction.transactionId, own);
  }

  dropInstruction(instruction: Instruction): void {
    this.instructions.delete(instruction.id);
    const own = this.#instructionsOf.get(instruction.transactionId);
    own?.splice(own.indexOf(instruction), 1);
  }

  /** A transaction's instructions, FUNDING first. */
  instructionsOf(transactionId: string): Instruction[] {
    return this.#instructionsOf.get(transactionId) ?? [];
  }

  addClock(clock: PartnerClock): void {
    this.clocks.set(clock.partnerId, clock);
  }

  dropClock(clock: PartnerClock): void {
    this.clocks.delete(clock.partnerId);
  }
}

const clientKey = (partnerId: number, clientRef: string) => `${partnerId}\u0000${clientRef}`;
