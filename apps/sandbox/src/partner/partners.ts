import type { Caller } from '../domain/operation.js';
import type { Queryable } from '../domain/queryable.js';
import { invalid, notFound, rejectNul, unauthorized } from './errors.js';

export interface Partner {
  id: number;
  publicApiKey: string;
}

/** Every partner application of this server belongs to the sandbox environment. */
export const ENVIRONMENT = 'SANDBOX';

export async function findPartnerByKey(
  db: Queryable,
  publicApiKey: string,
): Promise<Partner | undefined> {
  const { rows } = await db.query<{ id: number; public_api_key: string }>(
    'SELECT id, public_api_key FROM partner_applications WHERE public_api_key = $1',
    [publicApiKey],
  );
  const row = rows[0];
  return row && { id: Number(row.id), publicApiKey: row.public_api_key };
}

/**
 * The partner named by the path's public_api_key, provided the caller authenticated with a
 * partner token of that very application: a token of another partner must not act on it.
 */
export async function requireOwnedPartner(
  db: Queryable,
  caller: Caller,
  publicApiKey: string | undefined,
): Promise<Partner> {
  if (caller.kind !== 'partner') {
    throw unauthorized('API Authentication failed: a partner X-Service-Auth token is required');
  }
  if (!publicApiKey) throw invalid('public_api_key', 'required');
  rejectNul(publicApiKey, 'public_api_key');
  const partner = await findPartnerByKey(db, publicApiKey);
  if (!partner) throw notFound('Partner', 'public_api_key');
  if (partner.id !== caller.partnerId) {
    throw unauthorized(
      'API Authentication failed: the token does not belong to this public_api_key',
    );
  }
  return partner;
}
