/** The last nonce spent in one scope ("token:<id>", "session:<id>"). */
export interface NonceRow {
  scope: string;
  value: bigint;
}

/** `greatest` keeps a stored nonce rising whatever order writes land in. */
export const nonceConflict =
  'ON CONFLICT (scope) DO UPDATE SET last_nonce = greatest(nonces.last_nonce, EXCLUDED.last_nonce)';

/** The nonce of a call run in a transaction of its own, as a parameterised statement. */
export function nonceUpsert(nonce: NonceRow): { sql: string; params: string[] } {
  return {
    sql: `INSERT INTO nonces (scope, last_nonce) VALUES ($1, $2::numeric) ${nonceConflict}`,
    params: [nonce.scope, String(nonce.value)],
  };
}
