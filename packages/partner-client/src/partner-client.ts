import {
  type components,
  type Intent,
  loadSchemas,
  type operations as Operations,
  operationTable as operations,
  type PartnerTransaction,
  type PartnerTransactionList,
  type paths,
  type SettlementInstruction,
  secretFields,
  type Transaction,
  type UserSession,
} from '@exchange-kit/contract/partner';
import {
  type ApiClientConfig,
  type Authenticate,
  type ConnectionOptions,
  createApi,
  type PerCallOptions,
  type ValidationErrorGuard,
  validationErrorGuard,
  type WithDecimalInputs,
} from '@exchange-kit/core';

type Schemas = components['schemas'];

export type SessionInput = Omit<Schemas['SessionCreate'], 'public_api_key'>;
export type IntentInput = WithDecimalInputs<
  Omit<Schemas['IntentCreate'], 'public_api_key'>,
  typeof operations.createIntent.requestDecimals
>;
export type IntentToTradeInput = WithDecimalInputs<
  Schemas['IntentToTradeRequest'],
  typeof operations.intentToTrade.requestDecimals
>;
export type SettlementMethodInput = Schemas['SettlementMethodRequest'];
export type SettlementParametersInput = Schemas['SettlementParametersRequest'];
export type ListTransactionsQuery = NonNullable<
  Operations['listPartnerTransactions']['parameters']['query']
>;

export interface PartnerClientOptions extends ConnectionOptions {
  /** The partner interface's base URL, without /api/v1 (the spec's paths carry it). */
  partnersUrl: string;
  /** The partner's public API key. */
  publicApiKey: string;
  /** API token id; with tokenSecret, enables the server-side calls (intents, listing). */
  tokenId?: string;
  /** API token secret. Server side only: the browser build refuses it. */
  tokenSecret?: string;
}

/** The two halves of a user session that sign its calls: what session creation returns. */
export interface SessionCredentials {
  sessionId: string;
  /** Keep it in memory: whoever holds it can act on the session's transactions. */
  sessionSecret: string;
}

/** How the calls under /api/v1/partner/{public_api_key} get their X-Service-Auth, when they can. */
export type PartnerAuthenticator = ApiClientConfig['authenticate'];

/** Is this the 422 of that operation? Its `fields` are then the ones the spec documents for it. */
type GeneratedTable = typeof operations;
/** What the spec says of each partner operation: method, path, statuses, error codes. */
export interface PartnerOperationTable extends GeneratedTable {}

export const isValidationErrorOf: ValidationErrorGuard<PartnerOperationTable> =
  validationErrorGuard();

/** At most this many transactions come back per listing call. */
const listingLimit = 100;

type PartnerCall = ReturnType<typeof createApi<paths, Operations>>['call'];

/** The calls a user session makes: the same whether signed with the session's JWT or not. */
function sessionCalls(call: PartnerCall) {
  return {
    /** intent_to_trade: creates a transaction; pass `client_ref` to make retries safe. */
    async create(input: IntentToTradeInput, options?: PerCallOptions): Promise<Transaction> {
      const body = input as Schemas['IntentToTradeRequest'];
      return (await call('intentToTrade', { body }, options)).payload;
    },
    async status(transactionId: string, options?: PerCallOptions): Promise<Transaction> {
      const path = { transaction_id: transactionId };
      return (await call('getTransactionStatus', { path }, options)).payload;
    },
    /** Chooses how one side of a transaction is funded or paid out. */
    async setMethod(
      input: SettlementMethodInput,
      options?: PerCallOptions,
    ): Promise<SettlementInstruction> {
      return (await call('setSettlementMethod', { body: input }, options)).payload;
    },
    /** Supplies what an instruction still requires (a wallet address, a signed transaction). */
    async setParameters(
      input: SettlementParametersInput,
      options?: PerCallOptions,
    ): Promise<SettlementInstruction> {
      return (await call('setSettlementParameters', { body: input }, options)).payload;
    },
  };
}

/** The session's transaction calls, each signed with a fresh session Bearer JWT. */
export interface SessionClient {
  sessionId: string;
  transactions: ReturnType<typeof sessionCalls>;
}

/** Signs with the session's secret; the signing code loads with the first call it signs. */
function sessionSigner(credentials: SessionCredentials): Authenticate {
  let signer: Promise<Authenticate> | undefined;
  return async (request, path) => {
    signer ??= import('./session-signing.js').then(({ sessionAuthenticator }) =>
      sessionAuthenticator(credentials),
    );
    await (await signer)(request, path);
  };
}

export function buildPartnerClient(
  options: PartnerClientOptions,
  authenticate: PartnerAuthenticator,
) {
  const {
    partnersUrl,
    publicApiKey,
    tokenId: _tokenId,
    tokenSecret: _tokenSecret,
    ...connection
  } = options;
  // Every method sends through `call`, by operationId: method, path, statuses, decimals and the
  // response schema all come from the operations table.
  const { raw, call } = createApi<paths, Operations>({
    ...connection,
    baseUrl: partnersUrl,
    operations,
    loadSchemas,
    secretFields,
    ...(authenticate ? { authenticate } : {}),
    ...(options.tokenId ? { rateLimitKey: options.tokenId } : {}),
  });
  const partnerPath = { public_api_key: publicApiKey };

  function needsToken(call: string): void {
    if (!authenticate) {
      throw new TypeError(
        `${call} needs the partner's API token (tokenId and tokenSecret): call it from your backend`,
      );
    }
  }

  const transactions = {
    ...sessionCalls(call),
    /** One listing call: at most 100 transactions, oldest first. Needs the token. */
    async list(
      query: ListTransactionsQuery = {},
      options?: PerCallOptions,
    ): Promise<PartnerTransactionList> {
      needsToken('transactions.list');
      return (await call('listPartnerTransactions', { path: partnerPath, query }, options)).payload;
    },
    /** Every transaction matching the filters, asking again from the last timestamp + 1. */
    async *iterate(
      query: ListTransactionsQuery = {},
      options?: PerCallOptions,
    ): AsyncGenerator<PartnerTransaction, void, undefined> {
      let from = query.min_ts;
      for (;;) {
        const page = await transactions.list(
          { ...query, ...(from === undefined ? {} : { min_ts: from }) },
          options,
        );
        yield* page.transactions;
        const last = page.transactions.at(-1);
        if (!last || page.transactions.length < listingLimit) return;
        from = last.created_at + 1;
      }
    },
  };

  return {
    publicApiKey,
    sessions: {
      /** Opens a user session; its session_secret stays with whoever created it. */
      async create(input: SessionInput = {}, options?: PerCallOptions): Promise<UserSession> {
        const body = { ...input, public_api_key: publicApiKey };
        return (await call('createSession', { body }, options)).payload;
      },
    },
    intents: {
      /** Creates an intent with fixed economics. Needs the token: call it from your backend. */
      async create(input: IntentInput, options?: PerCallOptions): Promise<Intent> {
        needsToken('intents.create');
        const body = { ...input, public_api_key: publicApiKey } as Schemas['IntentCreate'];
        return (await call('createIntent', { path: partnerPath, body }, options)).payload;
      },
    },
    transactions,
    /**
     * The transaction calls of one user session, signed with its session_secret as a server
     * that requires the session Bearer JWT wants them. Takes the session as created, or its id
     * and secret; keep the secret in memory only.
     */
    forSession(session: UserSession | SessionCredentials): SessionClient {
      const credentials =
        'session_secret' in session
          ? { sessionId: session.session_id, sessionSecret: session.session_secret }
          : { sessionId: session.sessionId, sessionSecret: session.sessionSecret };
      const signed = createApi<paths, Operations>({
        ...connection,
        baseUrl: partnersUrl,
        operations,
        loadSchemas,
        secretFields,
        authenticate: sessionSigner(credentials),
      });
      return { sessionId: credentials.sessionId, transactions: sessionCalls(signed.call) };
    },
    /** The typed openapi-fetch client, for anything else. */
    raw,
  };
}

export type PartnerClient = ReturnType<typeof buildPartnerClient>;
