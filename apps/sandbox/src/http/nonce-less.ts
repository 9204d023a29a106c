import { createHash } from 'node:crypto';
import { bundledDocuments } from '@exchange-kit/contract/documents';
import type { JWTPayload } from 'jose';
import type { SandboxState } from '../state/sandbox-state.js';
import { AuthError } from './auth-error.js';

/**
 * How far, either way, the `iat` of an X-Service-Auth JWT without nonce may be from the
 * sandbox's clock: `x-nonce-less-window-seconds` of ServiceAuthPayload in the exchange spec.
 */
export const nonceLessWindowSeconds = (
  bundledDocuments.exchange.components?.schemas?.ServiceAuthPayload as
    | { 'x-nonce-less-window-seconds'?: number }
    | undefined
)?.['x-nonce-less-window-seconds'] as number;
if (!Number.isSafeInteger(nonceLessWindowSeconds)) {
  throw new Error('The exchange spec gives no x-nonce-less-window-seconds on ServiceAuthPayload');
}

/** A JWT without nonce, checked: accepted (see spendOneUse) once the whole call is let in. */
export interface OneUseToken {
  scope: string;
  key: string;
  iat: bigint;
  expiresAtMs: number;
}

function seen(state: SandboxState, token: OneUseToken): boolean {
  const stored = state.nonces.get(token.scope);
  return state.oneUseTokens.seen(token.scope, token.key, token.iat, stored);
}

const alreadyUsed = () =>
  new AuthError(
    'Token already used: a token without nonce places one order (sign each with its own jti, or with a nonce)',
  );

/**
 * Checks a JWT without nonce of `tokenId`, already verified: its `iat` within the window of
 * `now`, and not seen before. It is known by its header and payload, what the signature
 * covers, so no other encoding of its signature makes it another JWT.
 */
export function checkOneUse(
  state: SandboxState,
  tokenId: string,
  jwt: string,
  payload: JWTPayload,
  now: number,
): OneUseToken {
  const { iat } = payload;
  const nowSeconds = Math.floor(now / 1000);
  if (
    typeof iat !== 'number' ||
    !Number.isSafeInteger(iat) ||
    Math.abs(iat - nowSeconds) > nonceLessWindowSeconds
  ) {
    throw new AuthError(
      `iat must be within ${nonceLessWindowSeconds} seconds of the server's clock on a token without nonce`,
    );
  }
  const signed = jwt.slice(0, jwt.lastIndexOf('.'));
  const token = {
    scope: `iat:token:${tokenId}`,
    key: `${tokenId}:${createHash('sha256').update(signed).digest('base64url')}`,
    iat: BigInt(iat),
    expiresAtMs: (iat + nonceLessWindowSeconds + 1) * 1000,
  };
  if (seen(state, token)) throw alreadyUsed();
  return token;
}

/**
 * Spends a JWT without nonce. Runs in the same synchronous step that decides the call, so of
 * two calls carrying it only the first gets through; the caller stores its `iat` with the
 * call's changes, as a nonce.
 */
export function spendOneUse(state: SandboxState, token: OneUseToken, now: number): void {
  if (seen(state, token)) throw alreadyUsed();
  state.oneUseTokens.spend(token.key, token.expiresAtMs, now);
  const last = state.nonces.get(token.scope);
  if (last === undefined || last < token.iat) state.nonces.set(token.scope, token.iat);
}
