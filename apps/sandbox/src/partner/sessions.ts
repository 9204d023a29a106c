/** User sessions: created with a partner's public key, they carry the user to a transaction. */
import { randomUUID } from 'node:crypto';
import partnerSpec from '@exchange-kit/contract/partner/openapi.json' with { type: 'json' };
import { zDefaultTransaction, zUuid } from '@exchange-kit/contract/partner/schemas';
import type * as z from 'zod/mini';
import type { PartnerHandlerOf } from '../domain/operation.js';
import type { Queryable } from '../domain/queryable.js';
import { invalid, rejectNul } from './errors.js';
import { ENVIRONMENT, findPartnerByKey } from './partners.js';
import type { UserSession } from './schema-types.js';

type DefaultTransaction = UserSession['default_transaction'];

/** Offered until the user or the widget configuration picks other currencies. */
const DEFAULT_TRANSACTION: DefaultTransaction = {
  funding_settlement: { currency: 'USDC', quantity: '1000' },
  payout_settlement: { currency: 'BTC' },
};
const DEFAULT_COUNTRY = 'SG';
const TERMS_OF_SERVICE = `${partnerSpec.servers[0]?.variables.partners_url.default}/legal/terms-of-service`;

export interface SessionRow {
  id: string;
  partner_id: number;
}

export async function findSession(db: Queryable, id: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    'SELECT id, partner_id FROM qe_sessions WHERE id = $1',
    [id],
  );
  const row = rows[0];
  return row && { id: row.id, partner_id: Number(row.partner_id) };
}

/**
 * The secret that verifies a session's Bearer JWTs, for the authentication layer. The claim it
 * is looked up by is not yet verified, so anything but a UUID is simply not a session.
 */
export async function findSessionSecret(
  db: Queryable,
  sessionId: string,
): Promise<string | undefined> {
  if (!zUuid.safeParse(sessionId).success) return undefined;
  const { rows } = await db.query<{ secret: string }>(
    'SELECT secret FROM qe_sessions WHERE id = $1',
    [sessionId],
  );
  return rows[0]?.secret;
}

/** The region of a locale such as en-SG is the best guess at the user's country. */
function countryOf(locale: string | undefined): string {
  const region = locale?.match(/^[a-z]{2,3}[-_]([a-z]{2})\b/i)?.[1];
  return region ? region.toUpperCase() : DEFAULT_COUNTRY;
}

export const createSession: PartnerHandlerOf<'createSession'> = async ({ body, db, now }) => {
  rejectNul(body);
  const request = body;
  const partner = await findPartnerByKey(db, request.public_api_key);
  // The spec lists no 401 or 404 for session creation: an unknown key is an unacceptable field.
  if (!partner) throw invalid('public_api_key', 'not_found', 'Unknown public_api_key');

  const config = request.config ?? null;
  if (config?.public_api_key !== undefined && config.public_api_key !== partner.publicApiKey) {
    throw invalid(
      'config.public_api_key',
      'does_not_match',
      'config.public_api_key is another partner',
    );
  }
  if (config?.intent_id !== undefined) await requireWidgetIntent(db, config.intent_id, partner.id);
  const configured = zDefaultTransaction.safeParse(config?.default_transaction);

  const session: UserSession = {
    session_id: randomUUID(),
    session_secret: randomUUID(),
    environment: ENVIRONMENT,
    client_info: { suggested_country: countryOf(request.user_locale) },
    default_transaction: configured.success ? asStrings(configured.data) : DEFAULT_TRANSACTION,
    widget_configuration: config,
    _links: { terms_of_service: { href: TERMS_OF_SERVICE } },
  };
  await db.query(
    `INSERT INTO qe_sessions (id, partner_id, secret, suggested_country, default_transaction,
       widget_configuration, user_locale, ancestor_origins, created_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9)`,
    [
      session.session_id,
      partner.id,
      session.session_secret,
      session.client_info.suggested_country,
      JSON.stringify(session.default_transaction),
      config === null ? null : JSON.stringify(config),
      request.user_locale ?? null,
      request.ancestor_origins ?? null,
      now,
    ],
  );
  return { status: 200, body: { success: true, environment: ENVIRONMENT, payload: session } };
};

/** Quantities go out as decimal strings whichever way the widget configuration wrote them. */
function asStrings(defaults: z.infer<typeof zDefaultTransaction>): DefaultTransaction {
  const { funding_settlement: funding, payout_settlement: payout } = defaults;
  const result: DefaultTransaction = {};
  if (funding) {
    result.funding_settlement =
      funding.quantity === undefined
        ? { currency: funding.currency }
        : { currency: funding.currency, quantity: String(funding.quantity) };
  }
  if (payout) result.payout_settlement = { currency: payout.currency };
  return result;
}

/** The widget may be initialised with an intent of this partner only; showing it consumes nothing. */
async function requireWidgetIntent(
  db: Queryable,
  intentId: unknown,
  partnerId: number,
): Promise<void> {
  const id = zUuid.safeParse(intentId);
  if (!id.success) throw invalid('config.intent_id', 'invalid', 'config.intent_id is not a UUID');
  const { rows } = await db.query('SELECT 1 FROM qe_intents WHERE id = $1 AND partner_id = $2', [
    id.data,
    partnerId,
  ]);
  if (rows.length === 0) throw invalid('config.intent_id', 'not_found', 'Intent not found');
}
