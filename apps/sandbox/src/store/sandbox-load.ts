import { SandboxState } from '../state/sandbox-state.js';
import { loadExchangeState } from './exchange-load.js';
import { loadPartnerState } from './partner-load.js';
import type { Queryable } from './queryable.js';

/** The sandbox as the store holds it: the exchange, Quick Exchange and the spent nonces. */
export async function loadSandboxState(db: Queryable): Promise<SandboxState> {
  const exchange = await loadExchangeState(db);
  const partner = await loadPartnerState(db);
  const state = new SandboxState(exchange, partner);
  const { rows } = await db.query<{ scope: string; last_nonce: string }>(
    'SELECT scope, last_nonce::text AS last_nonce FROM nonces',
  );
  for (const row of rows) state.nonces.set(row.scope, BigInt(row.last_nonce));
  return state;
}
