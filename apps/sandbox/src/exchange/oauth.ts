import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { components } from '@exchange-kit/contract/exchange';
import { NotAuthenticated, NotFound } from '../handling/errors.js';
import { canonicalUuid } from '../handling/ids.js';
import type { ExchangeHandlerOf, Handlers } from '../handling/operation.js';
import type { Journal } from '../state/journal.js';
import type { OAuthRequest } from '../state/records.js';
import type { SandboxState } from '../state/sandbox-state.js';

/** How long a user has to approve a request, and then how long the application may act. */
export const oauthRequestLifetimeMs = 10 * 60 * 1000;

function view(request: OAuthRequest, exchangeUrl: string): components['schemas']['OAuthRequest'] {
  return {
    oauth_request_public_id: request.publicId,
    oauth_request_private_id: request.privateId,
    expires: Math.floor(request.expiresAt / 1000),
    app_challenge_href: `${exchangeUrl}/oauth/${request.publicId}`,
    api_challenge_href: `${exchangeUrl}/oauth/${request.privateId}/approve`,
  };
}

type OAuthRequestStatus = components['schemas']['OAuthRequestStatus'];

/** Where `request` stands at `now`: a denial stays a denial once `expires` passed too. */
export function oauthRequestStatus(request: OAuthRequest, now: number): OAuthRequestStatus {
  if (request.deniedAt !== null) return 'denied';
  if (request.expiresAt <= now) return 'expired';
  return request.approvedByUserId === null ? 'pending' : 'approved';
}

/**
 * Grants `request` to `userId` unless it is closed (expired, denied) or another user holds it;
 * approving twice is a no-op.
 */
function approve(journal: Journal, request: OAuthRequest, userId: number, now: number): boolean {
  const status = oauthRequestStatus(request, now);
  if (status === 'denied' || status === 'expired') return false;
  if (request.approvedByUserId !== null && request.approvedByUserId !== userId) return false;
  const approved = journal.touch('oauthRequest', request);
  approved.approvedByUserId = userId;
  approved.approvedAt = now;
  return true;
}

/** OAuth requests of applications, and the user's approval through api_challenge_href. */
export function oauthHandlers(exchangeUrl: string): Handlers {
  const createOAuthRequest: ExchangeHandlerOf<'createOAuthRequest'> = ({
    journal,
    caller,
    body,
    now,
  }) => {
    if (caller.kind !== 'token') throw new NotAuthenticated('API Authentication failed');
    const request = journal.add('oauthRequest', {
      publicId: randomUUID(),
      privateId: randomUUID(),
      appTokenId: caller.tokenId,
      externalRef: body?.external_ref ?? null,
      createdAt: now,
      expiresAt: now + oauthRequestLifetimeMs,
      approvedByUserId: null,
      approvedAt: null,
      deniedAt: null,
    });
    return { status: 200, body: view(request, exchangeUrl) };
  };

  /** Signed with the user's own token: that user grants the request. */
  const approveOAuthRequest: ExchangeHandlerOf<'approveOAuthRequest'> = ({
    journal,
    caller,
    path,
    now,
  }) => {
    if (caller.kind !== 'token') throw new NotAuthenticated('API Authentication failed');
    const privateId = canonicalUuid(path.oauth_request_private_id);
    const request =
      privateId === undefined ? undefined : journal.exchange.oauthRequestByPrivateId(privateId);
    if (!request || !approve(journal, request, caller.userId, now)) {
      throw new NotFound('OAuth request not found');
    }
    return { status: 200, body: view(request, exchangeUrl) };
  };

  /** Signed with the application's own token: only the token that created it may read it. */
  const getOAuthRequest: ExchangeHandlerOf<'getOAuthRequest'> = ({
    journal,
    caller,
    path,
    now,
  }) => {
    if (caller.kind !== 'token') throw new NotAuthenticated('API Authentication failed');
    const publicId = canonicalUuid(path.oauth_request_public_id);
    const request =
      publicId === undefined ? undefined : journal.exchange.oauthRequests.get(publicId);
    if (!request || request.appTokenId !== caller.tokenId) {
      throw new NotFound('OAuth request not found');
    }
    return {
      status: 200,
      body: {
        ...view(request, exchangeUrl),
        status: oauthRequestStatus(request, now),
        decided_at: decidedAt(request),
      },
    };
  };

  return { createOAuthRequest, approveOAuthRequest, getOAuthRequest };
}

function decidedAt(request: OAuthRequest): number | null {
  const at = request.deniedAt ?? request.approvedAt;
  return at === null ? null : Math.floor(at / 1000);
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
  /** A closed request (denied, expired) shows only how it ended. */
  status: OAuthRequestStatus;
}

/** The request behind an `app_challenge_href`, whatever its state; undefined when there is none. */
export function findChallenge(
  state: SandboxState,
  publicId: string,
  now: number,
): OAuthChallenge | undefined {
  const key = canonicalUuid(publicId);
  const request = key === undefined ? undefined : state.exchange.oauthRequests.get(key);
  if (!request) return undefined;
  const userId = state.exchange.tokens.get(request.appTokenId)?.userId;
  const user = userId === undefined ? undefined : state.exchange.users.get(userId);
  if (userId === undefined || !user) return undefined;
  const application = state.partner.applicationsOf(userId)[0];
  return {
    publicId: request.publicId,
    applicationName: application?.name ?? `${user.firstName} ${user.lastName}`,
    applicationTokenId: request.appTokenId,
    approvedByUserId: request.approvedByUserId,
    expiresAt: request.expiresAt,
    status: oauthRequestStatus(request, now),
  };
}

export interface SignedInUser {
  userId: number;
  name: string;
  email: string;
}

/** The user an API token id and secret belong to, when the secret is right. */
export function signIn(
  state: SandboxState,
  tokenId: string,
  tokenSecret: string,
): SignedInUser | undefined {
  const token = state.exchange.tokens.get(tokenId);
  const user = token && state.exchange.users.get(token.userId);
  const given = Buffer.from(tokenSecret);
  const kept = Buffer.from(token?.secret ?? '');
  // Compared in constant time, so the answer's timing tells nothing of the secret.
  if (!user || given.length !== kept.length || !timingSafeEqual(given, kept)) return undefined;
  return { userId: user.id, name: `${user.firstName} ${user.lastName}`, email: user.email };
}

/**
 * The person's answer at `app_challenge_href`. Approving grants the application the user's
 * context and accounts, as approveOAuthRequest does; denying closes the request for good, and
 * its ids are refused as denied from then on. False when the request is no longer open to
 * this user (expired, denied, or approved by someone else).
 */
export function decideChallenge(
  journal: Journal,
  publicId: string,
  userId: number,
  decision: 'approve' | 'deny',
  now: number,
): boolean {
  if (decision === 'deny') return denyRequest(journal, publicId, now) === 'denied';
  const key = canonicalUuid(publicId);
  const request = key === undefined ? undefined : journal.exchange.oauthRequests.get(key);
  return request !== undefined && approve(journal, request, userId, now);
}

/**
 * Denies a pending request: its ids are refused as denied from then on. The status it has
 * afterwards (`denied` when this denied it, or what it already was), undefined when unknown.
 */
export function denyRequest(
  journal: Journal,
  publicId: string,
  now: number,
): OAuthRequestStatus | undefined {
  const key = canonicalUuid(publicId);
  const request = key === undefined ? undefined : journal.exchange.oauthRequests.get(key);
  if (!request) return undefined;
  const status = oauthRequestStatus(request, now);
  if (status !== 'pending') return status;
  journal.touch('oauthRequest', request).deniedAt = now;
  return 'denied';
}
