import type { ApiName } from '@exchange-kit/contract/documents';
import type { Caller, Reply } from '../handling/operation.js';
import { type AnonymousRateLimits, type RateLimit, RateLimiter } from './rate-limit.js';
import { errorReply, HttpError } from './refusals.js';

/** What a rate limit reads of a call besides its caller. */
export interface LimitedCall {
  api: ApiName;
  body: unknown;
  address: string;
}

/** The partner public key an anonymous call names, if it names one. */
function publicKeyOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { public_api_key: key, api_key: legacy } = body as Record<string, unknown>;
  if (typeof key === 'string') return key;
  return typeof legacy === 'string' ? legacy : undefined;
}

/**
 * Decides, call by call, whether a caller is over its limit: per token when `rateLimit` is
 * given, per partner public key and per client address for anonymous partner calls.
 */
export function callLimits(rateLimit?: RateLimit, anonymousRateLimits?: AnonymousRateLimits) {
  const limiter = rateLimit && new RateLimiter(rateLimit);
  const { perKey, perAddress } = anonymousRateLimits ?? {};
  const keyLimiter = perKey && new RateLimiter(perKey);
  const addressLimiter = perAddress && new RateLimiter(perAddress);

  /**
   * The service's answer to a caller over its limit, before the call spends its nonce or
   * changes anything: the same call succeeds once the client has waited as told. A token is
   * limited by its own count; an anonymous partner call by its public key's and its
   * address's, counted only when both let it in.
   */
  function overLimit(caller: Caller, now: number, call: LimitedCall): Reply | undefined {
    let refused: { retryAfterSeconds: number } | undefined;
    if ('tokenId' in caller) {
      refused = limiter?.take(caller.tokenId, now);
    } else if (caller.kind === 'anonymous' && call.api === 'partner') {
      const key = publicKeyOf(call.body);
      const byKey = key === undefined ? undefined : keyLimiter?.refusal(key, now);
      const byAddress = addressLimiter?.refusal(call.address, now);
      refused =
        byKey && byAddress
          ? byKey.retryAfterSeconds > byAddress.retryAfterSeconds
            ? byKey
            : byAddress
          : (byKey ?? byAddress);
      if (!refused) {
        if (key !== undefined) keyLimiter?.count(key, now);
        addressLimiter?.count(call.address, now);
      }
    }
    if (!refused) return undefined;
    const seconds = refused.retryAfterSeconds;
    const message = `API rate limit exceeded. Please retry after ${seconds}s`;
    return {
      ...errorReply(new HttpError(429, message), call.api),
      headers: { 'retry-after': String(seconds) },
    };
  }
  return overLimit;
}
