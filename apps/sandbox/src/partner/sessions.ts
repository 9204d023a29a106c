/** User sessions: created with a partner's public key, they carry the user to a transaction. */
import { randomUUID } from 'node:crypto';
import type { UserSession } from '@exchange-kit/contract/partner';
import partnerSpec from '@exchange-kit/contract/partner/openapi.json' with { type: 'json' };
import { zDefaultTransaction } from '@exchange-kit/contract/partner/schemas';
import type * as z from 'zod/mini';
import { canonicalUuid } from '../handling/ids.js';
import type { PartnerHandlerOf } from '../handling/operation.js';
import type { PartnerState } from '../state/partner-state.js';
import type { SandboxState } from '../state/sandbox-state.js';
import { invalid } from './errors.js';
import { requireFulfillable } from './intents.js';
import { ENVIRONMENT } from './partners.js';

type DefaultTransaction = UserSession['default_transaction'];

/** Offered until the user or the widget configuration picks other currencies. */
const DEFAULT_TRANSACTION: DefaultTransaction = {
  funding_settlement: { currency: 'USDC', quantity: '1000' },
  payout_settlement: { currency: 'BTC' },
};
const DEFAULT_COUNTRY = 'SG';
const TERMS_OF_SERVICE = `${partnerSpec.servers[0]?.variables.partners_url.default}/legal/terms-of-service`;

/**
 * The secret that verifies a session's Bearer JWTs, for the authentication layer. The claim it
 * is looked up by is not yet verified, so anything but a UUID is simply not a session.
 */
export function findSessionSecret(state: SandboxState, sessionId: string): string | undefined {
  const id = canonicalUuid(sessionId);
  return id === undefined ? undefined : state.partner.sessions.get(id)?.secret;
}

/** The region of a locale such as en-SG is the best guess at the user's country. */
function countryOf(locale: string | undefined): string {
  const region = locale?.match(/^[a-z]{2,3}[-_]([a-z]{2})\b/i)?.[1];
  return region ? region.toUpperCase() : DEFAULT_COUNTRY;
}

export const createSession: PartnerHandlerOf<'createSession'> = ({ body, journal, now }) => {
  const request = body;
  const partner = journal.partner.applicationsByKey.get(request.public_api_key);
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
  if (config?.intent_id !== undefined) {
    requireWidgetIntent(journal.partner, config.intent_id, partner.id, now);
  }
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
  journal.add('session', {
    id: session.session_id,
    partnerId: partner.id,
    secret: session.session_secret,
    suggestedCountry: session.client_info.suggested_country,
    defaultTransaction: session.default_transaction,
    widgetConfiguration: config,
    userLocale: request.user_locale ?? null,
    ancestorOrigins: request.ancestor_origins ?? null,
    createdAt: now,
  });
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

/**
 * The widget may be initialised with an intent of this partner only, one a transaction can
 * still fulfil: it opens on the intent's quote, which its buy action must be able to take.
 * Showing it consumes nothing.
 */
function requireWidgetIntent(
  state: PartnerState,
  intentId: unknown,
  partnerId: number,
  now: number,
): void {
  const id = canonicalUuid(intentId);
  if (id === undefined) {
    throw invalid('config.intent_id', 'invalid', 'config.intent_id is not a UUID');
  }
  const intent = state.intents.get(id);
  if (intent?.partnerId !== partnerId) {
    throw invalid('config.intent_id', 'not_found', 'Intent not found');
  }
  requireFulfillable(intent, 'config.intent_id', now);
}
