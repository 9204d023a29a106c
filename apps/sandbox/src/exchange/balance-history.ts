import type { ExchangeState, LedgerEntry } from '../state/exchange-state.js';

/**
 * Every read of ledger history goes through here. Entries are in memory today
 * (`entriesByUser`, oldest first, as they were posted); keeping them in the store instead
 * changes this file alone.
 */

export interface EntryFilter {
  currency?: string;
  sourceAction?: LedgerEntry['sourceAction'];
  /** Made at or after, in ms. */
  fromMs?: number;
  /** Made at or before, in ms. */
  toMs?: number;
}

const matches = (entry: LedgerEntry, filter: EntryFilter) =>
  (filter.currency === undefined || entry.currency === filter.currency) &&
  (filter.sourceAction === undefined || entry.sourceAction === filter.sourceAction) &&
  (filter.fromMs === undefined || entry.createdAt >= filter.fromMs) &&
  (filter.toMs === undefined || entry.createdAt <= filter.toMs);

/** `userId`'s entries that `filter` picks, newest first, at most `limit` of them. */
export function newestEntries(
  state: ExchangeState,
  userId: number,
  filter: EntryFilter,
  limit = Number.POSITIVE_INFINITY,
): LedgerEntry[] {
  const entries = state.entriesByUser.get(userId) ?? [];
  const picked: LedgerEntry[] = [];
  for (let at = entries.length - 1; at >= 0 && picked.length < limit; at--) {
    const entry = entries[at] as LedgerEntry;
    if (matches(entry, filter)) picked.push(entry);
  }
  return picked;
}

/** The users who have entries: every account holder, the house included. */
export const usersWithEntries = (state: ExchangeState): number[] => [...state.entriesByUser.keys()];
