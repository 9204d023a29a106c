import { randomUUID } from 'node:crypto';
import type { zOAuthRequestCreate } from '@exchange-kit/contract/exchange/schemas';
import type * as z from 'zod/mini';
import { type Handler, type Handlers, HttpError } from '../http/types.js';

/** How long a user has to approve a request, and then how long the application may act. */
export const oauthRequestLifetimeMs = 10 * 60 * 1000;

interface OAuthRow {
  public_id: string;
  private_id: string;
  expires_at: number;
}

function view(row: OAuthRow, exchangeUrl: string): Record<string, unknown> {
  return {
    oauth_request_public_id: row.public_id,
    oauth_request_private_id: row.private_id,
    expires: Math.floor(row.expires_at / 1000),
    app_challenge_href: `${exchangeUrl}/oauth/${row.public_id}`,
    api_challenge_href: `${exchangeUrl}/oauth/${row.private_id}/approve`,
  };
}

/** OAuth requests of applications, and the user's approval through api_challenge_href. */
export function oauthHandlers(exchangeUrl: string): Handlers {
  const createOAuthRequest: Handler = async ({ db, caller, body, now }) => {
    if (caller.kind !== 'token') throw new HttpError(401, 'API Authentication failed');
    const { external_ref } = (body ?? {}) as z.infer<typeof zOAuthRequestCreate>;
    const { rows } = await db.query<OAuthRow>(
      `INSERT INTO oauth_requests (public_id, private_id, app_token_id, external_ref, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING public_id, private_id, expires_at`,
      [
        randomUUID(),
        randomUUID(),
        caller.tokenId,
        external_ref ?? null,
        now,
        now + oauthRequestLifetimeMs,
      ],
    );
    const row = rows[0];
    if (!row) throw new Error('OAuth request insert returned nothing');
    return { status: 200, body: view(row, exchangeUrl) };
  };

  /** Signed with the user's own token: that user grants the request. Approving twice is a no-op. */
  const approveOAuthRequest: Handler = async ({ db, caller, path, now }) => {
    if (caller.kind !== 'token') throw new HttpError(401, 'API Authentication failed');
    const { rows } = await db.query<OAuthRow>(
      `UPDATE oauth_requests SET approved_by_user_id = $2, approved_at = $3
       WHERE private_id::text = $1 AND expires_at > $3
         AND (approved_by_user_id IS NULL OR approved_by_user_id = $2)
       RETURNING public_id, private_id, expires_at`,
      [(path.oauth_request_private_id ?? '').toLowerCase(), caller.userId, now],
    );
    const row = rows[0];
    if (!row) throw new HttpError(404, 'OAuth request not found');
    return { status: 200, body: view(row, exchangeUrl) };
  };

  return { createOAuthRequest, approveOAuthRequest };
}
