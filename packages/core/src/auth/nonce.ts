/**
 * Nonces must rise strictly per API token. Current Unix time in milliseconds is the
 * recommended source, but many calls can start in one millisecond, so each token keeps
 * its last nonce and a call in the same millisecond takes the next integer.
 *
 * The state is per process and keyed by token id, so every client instance in the
 * process that signs with the same token draws from the same sequence.
 */
const lastNonceByToken = new Map<string, number>();

/** The next nonce for `tokenId`: the current time in ms, or one more than the last one. */
export function nextNonce(tokenId: string, now: number = Date.now()): number {
  const last = lastNonceByToken.get(tokenId) ?? 0;
  const nonce = now > last ? now : last + 1;
  lastNonceByToken.set(tokenId, nonce);
  return nonce;
}
