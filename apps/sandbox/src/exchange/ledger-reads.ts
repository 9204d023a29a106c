import type { components } from '@exchange-kit/contract/exchange';
import type { ExchangeHandlerOf, Handlers } from '../domain/operation.js';
import type { LedgerEntry } from '../state/exchange-state.js';
import { newestEntries } from './balance-history.js';
import { actingUser } from './caller.js';
import { fractionalSeconds } from './market.js';

export function entryView(entry: LedgerEntry): components['schemas']['LedgerEntry'] {
  return {
    id: entry.id,
    currency: entry.currency,
    amount: entry.amount.toFixed(),
    balance: entry.balance.toFixed(),
    source_action: entry.sourceAction,
    source_object_type: entry.sourceObjectType,
    source_object_id: entry.sourceObjectId,
    timestamp: fractionalSeconds(entry.createdAt),
  };
}

const seconds = (value: number | undefined) => (value === undefined ? undefined : value * 1000);

/** The caller's entries, newest first, filtered by currency, kind and time. */
const listBalanceHistory: ExchangeHandlerOf<'listBalanceHistory'> = ({
  journal,
  caller,
  query,
}) => {
  const entries = newestEntries(
    journal.exchange,
    actingUser(caller),
    {
      currency: query.currency,
      sourceAction: query.source_action,
      fromMs: seconds(query.timestamp_gte),
      toMs: seconds(query.timestamp_lte),
    },
    query.limit,
  );
  return { status: 200, body: entries.map(entryView) };
};

export const ledgerHandlers = { listBalanceHistory } satisfies Handlers;
