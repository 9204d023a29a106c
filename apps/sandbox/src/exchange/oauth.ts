import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { components } from '@exchange-kit/contract/exchange';
import { NotAuthenticated, NotFound } from '../domain/errors.js';
import type { ExchangeApiHandlerOf, Handlers } from '../domain/operation.js';
import type { Queryable } from '../domain/queryable.js';

/** How long a user has to approve a request, and then how long the application may act. */
export const oauthRequestLifetimeMs = 10 * 60 * 1000;

interface OAuthRow {
  public_id: string;
  private_id: string;
  expires_at: number;
}

function view(row: OAuthRow, exchangeUrl: string): components['schemas']['OAuthRequest'] {
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
  const createOAuthRequest: ExchangeApiHandlerOf<'createOAuthRequest'> = async ({
    db,
    caller,
    body,
    now,
  }) => {
    if (caller.kind !== 'token') throw new NotAuthenticated('API Authentication failed');
    const { external_ref } = body ?? {};
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
  const approveOAuthRequest: ExchangeApiHandlerOf<'approveOAuthRequest'> = async ({
    db,
    caller,
    path,
    now,
  }) => {
    if (caller.kind !== 'token') throw new NotAuthenticated('API Authentication failed');
    const { rows } = await db.query<OAuthRow>(
      `UPDATE oauth_requests SET approved_by_user_id = $2, approved_at = $3
       WHERE private_id::text = $1 AND expires_at > $3
         AND (approved_by_user_id IS NULL OR approved_by_user_id = $2)
       RETURNING public_id, private_id, expires_at`,
      [(path.oauth_request_private_id ?? '').toLowerCase(), caller.userId, now],
    );
    const row = rows[0];
    if (!row) throw new NotFound('OAuth request not found');
    return { status: 200, body: view(row, exchangeUrl) };
  };

  return { createOAuthRequest, approveOAuthRequest };
}

/** An OAuth request as the person asked to approve it sees it. */
export interface OAuthChallenge {
  publicId: string;
  /** The partner application of the requesting token's user, else that user's name. */
  applicationName: string;
  /** The API token the application signs its calls with. */
  applicationTokenId: string;
  approvedByUserId: number | null;
  expiresAt: number;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The unexpired request behind an `app_challenge_href`, approved or not; undefined otherwise. */
export async function findChallenge(
  db: Queryable,
  publicId: string,
  now: number,
): Promise<OAuthChallenge | undefined> {
  if (!uuidPattern.test(publicId)) return undefined;
  const { rows } = await db.query<{
    public_id: string;
    app_token_id: string;
    approved_by_user_id: number | string | null;
    expires_at: number | string;
    first_name: string;
    last_name: string;
    application: string | null;
  }>(
    `SELECT o.public_id, o.app_token_id, o.approved_by_user_id, o.expires_at, u.first_name,
       u.last_name,
       (SELECT name FROM partner_applications p WHERE p.user_id = u.id ORDER BY p.id LIMIT 1)
         AS application
     FROM oauth_requests o JOIN api_tokens t ON t.id = o.app_token_id
       JOIN users u ON u.id = t.user_id
     WHERE o.public_id::text = $1 AND o.expires_at > $2`,
    [publicId.toLowerCase(), now],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    publicId: row.public_id,
    applicationName: row.application ?? `${row.first_name} ${row.last_name}`,
    applicationTokenId: row.app_token_id,
    approvedByUserId: row.approved_by_user_id === null ? null : Number(row.approved_by_user_id),
    expiresAt: Number(row.expires_at),
  };
}

export interface SignedInUser {
  userId: number;
  name: string;
  email: string;
}

/** The user an API token id and secret belong to, when the secret is right. */
export async function signIn(
  db: Queryable,
  tokenId: string,
  tokenSecret: string,
): Promise<SignedInUser | undefined> {
  const { rows } = await db.query<{
    user_id: number | string;
    secret: string;
    first_name: string;
    last_name: string;
    email: string;
  }>(
    `SELECT t.user_id, t.secret, u.first_name, u.last_name, u.email
     FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.id = $1`,
    [tokenId],
  );
  const row = rows[0];
  const given = Buffer.from(tokenSecret);
  const kept = Buffer.from(row?.secret ?? '');
  // Compared in constant time, so the answer's timing tells nothing of the secret.
  if (!row || given.length !== kept.length || !timingSafeEqual(given, kept)) return undefined;
  return {
    userId: Number(row.user_id),
    name: `${row.first_name} ${row.last_name}`,
    email: row.email,
  };
}

/**
 * The person's answer at `app_challenge_href`. Approving grants the application the user's
 * context and accounts, as approveOAuthRequest does; denying ends the request, so neither an
 * approval nor a call with its ids succeeds afterwards. False when the request is no longer
 * open to this user (expired, denied, or approved by someone else).
 */
export async function decideChallenge(
  db: Queryable,
  publicId: string,
  userId: number,
  decision: 'approve' | 'deny',
  now: number,
): Promise<boolean> {
  const { rows } =
    decision === 'approve'
      ? await db.query(
          `UPDATE oauth_requests SET approved_by_user_id = $2, approved_at = $3
           WHERE public_id::text = $1 AND expires_at > $3
             AND (approved_by_user_id IS NULL OR approved_by_user_id = $2)
           RETURNING public_id`,
          [publicId.toLowerCase(), userId, now],
        )
      : await db.query(
          `UPDATE oauth_requests SET expires_at = $2
           WHERE public_id::text = $1 AND expires_at > $2 AND approved_by_user_id IS NULL
           RETURNING public_id`,
          [publicId.toLowerCase(), now],
        );
  return rows.length > 0;
}
