import type { Caller } from '../handling/operation.js';
import type { PartnerApplication, PartnerState } from '../state/partner-state.js';
import { invalid, notFound, unauthorized } from './errors.js';

/** Every partner application of this server belongs to the sandbox environment. */
export const ENVIRONMENT = 'SANDBOX';

/**
 * The partner named by the path's public_api_key, provided the caller authenticated with a
 * partner token of that very application: a token of another partner must not act on it.
 */
export function requireOwnedPartner(
  state: PartnerState,
  caller: Caller,
  publicApiKey: string | undefined,
): PartnerApplication {
  if (caller.kind !== 'partner') {
    throw unauthorized('API Authentication failed: a partner X-Service-Auth token is required');
  }
  if (!publicApiKey) throw invalid('public_api_key', 'required');
  const partner = state.applicationsByKey.get(publicApiKey);
  if (!partner) throw notFound('Partner', 'public_api_key');
  if (partner.id !== caller.partnerId) {
    throw unauthorized(
      'API Authentication failed: the token does not belong to this public_api_key',
    );
  }
  return partner;
}
