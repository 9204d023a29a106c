import { type Intent, PartnerState } from '../state/partner-state.js';
import type { Queryable } from './queryable.js';
import { readRecords } from './record-readers.js';

/**
 * Quick Exchange as the store holds it, read into a new state, but for its intents: they are
 * the most numerous rows, and a call names the one it needs, which is read then (readIntents).
 */
export async function loadPartnerState(db: Queryable): Promise<PartnerState> {
  const state = new PartnerState();
  for (const application of await readRecords(db, 'partnerApplication')) {
    state.addApplication(application);
  }
  for (const asset of await readRecords(db, 'assets', null)) state.assets.set(asset.code, asset);
  state.prices.push(...(await readRecords(db, 'prices', null)));
  for (const session of await readRecords(db, 'session', null)) state.addSession(session);
  for (const clock of await readRecords(db, 'partnerClock', null)) state.addClock(clock);
  for (const transaction of await readRecords(db, 'transaction', 'created_at')) {
    state.addTransaction(transaction);
  }
  for (const instruction of await readRecords(db, 'instruction', null)) {
    state.addInstruction(instruction);
  }
  return state;
}

/** The intents among `ids` (lower-case UUIDs) that the store holds. */
export async function readIntents(db: Queryable, ids: readonly string[]): Promise<Intent[]> {
  return readRecords(db, 'intent', null, {
    filter: { where: 'id = ANY($1::uuid[])', params: [ids] },
  });
}

/**
 * The id of every intent the store holds. One string, split here: PGlite hands out a single
 * value far faster than a row object per intent.
 */
export async function readIntentIds(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ ids: string | null }>(
    "SELECT string_agg(id::text, ',') AS ids FROM qe_intents",
  );
  return rows[0]?.ids?.split(',') ?? [];
}
