import type {
  PartnerClient,
  PerCallOptions,
  SessionClient,
  SessionInput,
  UserSession,
} from '@exchange-kit/partner-client';
import type { QuickExchangeSession } from './session-shape.js';

/** The transaction calls of a session, signed with its secret when it is known here. */
export type SessionCalls = Pick<SessionClient, 'transactions'>;

/**
 * Where the session_secret lives: in this object's memory only, never in the query cache,
 * never in storage, never in server-rendered HTML. One keeper per provider (or per
 * createQuickExchange on a server): a reload forgets the secret, as it should.
 */
export interface SessionKeeper {
  /** Opens a session, which becomes the current one; its secret stays here. */
  open(input: SessionInput, options?: PerCallOptions): Promise<QuickExchangeSession>;
  /** The session opened last, so that a reset cache finds it again instead of opening another. */
  current(): QuickExchangeSession | undefined;
  /** The calls of a session: signed when its secret is held here, unsigned otherwise. */
  clientFor(sessionId: string | undefined): SessionCalls;
  /** Remembers which session made a transaction, to sign the reads of its status. */
  remember(transactionId: string, sessionId: string): void;
  /** The session that made a transaction, when it was made through this keeper. */
  sessionOf(transactionId: string): string | undefined;
}

/** The part of a session that is safe to cache, save and render: no secret. */
export function keptPart(session: UserSession): QuickExchangeSession {
  return {
    sessionId: session.session_id,
    environment: session.environment,
    suggestedCountry: session.client_info.suggested_country,
    defaultTransaction: session.default_transaction,
    termsOfServiceHref: session._links.terms_of_service.href,
  };
}

export function createSessionKeeper(client: PartnerClient): SessionKeeper {
  const signed = new Map<string, SessionClient>();
  const owners = new Map<string, string>();
  let latest: QuickExchangeSession | undefined;
  return {
    async open(input, options) {
      const session = await client.sessions.create(input, options);
      signed.set(session.session_id, client.forSession(session));
      latest = keptPart(session);
      return latest;
    },
    current: () => latest,
    clientFor: (sessionId) =>
      (sessionId === undefined ? undefined : signed.get(sessionId)) ?? client,
    remember: (transactionId, sessionId) => void owners.set(transactionId, sessionId),
    sessionOf: (transactionId) => owners.get(transactionId),
  };
}
