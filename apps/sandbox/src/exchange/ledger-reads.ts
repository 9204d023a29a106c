import type { components } from '@exchange-kit/contract/exchange';
import { NotFound } from '../handling/errors.js';
import { type ExchangeHandlerOf, type Handlers, later } from '../handling/operation.js';
import { D, type LedgerEntry } from '../state/records.js';
import { actingUser } from './caller.js';
import { fractionalSeconds } from './market.js';
import { pageFrom } from './paging.js';
import { reservedHolders } from './reserved-details.js';
import { accountsOf } from './users.js';

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

function transactionView(entry: LedgerEntry): components['schemas']['Transaction'] {
  return {
    id: entry.id,
    currency: entry.currency,
    transaction_type: entry.sourceAction,
    gross_amount: entry.amount.toFixed(),
    balance: entry.balance.toFixed(),
    source_object_type: entry.sourceObjectType,
    source_object_id: entry.sourceObjectId,
    created_at: Math.floor(entry.createdAt / 1000),
  };
}

const ms = (seconds: number | undefined) => (seconds === undefined ? undefined : seconds * 1000);

/** The caller's entries, newest first, filtered by currency, kind and time. */
const listBalanceHistory: ExchangeHandlerOf<'listBalanceHistory'> = ({ caller, query }) => {
  const userId = actingUser(caller);
  const filter = {
    currency: query.currency,
    sourceAction: query.source_action,
    fromMs: ms(query.timestamp_gte),
    toMs: ms(query.timestamp_lte),
  };
  return later(async (history) => {
    const entries = await history.entries(userId, filter, 0, query.limit);
    return { status: 200, body: entries.map(entryView) };
  });
};

/** The same entries, paged as the older transactions list pages them. */
const listTransactions: ExchangeHandlerOf<'listTransactions'> = ({ caller, query }) => {
  const userId = actingUser(caller);
  const { limit, page } = query;
  const filter = { currency: query.currency, sourceAction: query.transaction_type };
  return later((history) =>
    // The page and its total of one moment: a page at or under total_pages is never empty.
    history.together(async (now) => {
      const entries = await now.entries(userId, filter, (page - 1) * limit, limit);
      const total = await now.countEntries(userId, filter);
      return { status: 200, body: pageFrom(total, entries.map(transactionView), limit, page) };
    }),
  );
};

const ownAccounts = (state: Parameters<typeof accountsOf>[0], userId: number) =>
  [...(state.accounts.get(userId)?.values() ?? [])].sort((a, b) => a.id - b.id);

const listAccountBalances: ExchangeHandlerOf<'listAccountBalances'> = ({ journal, caller }) => ({
  status: 200,
  body: ownAccounts(journal.exchange, actingUser(caller)).map((account) => ({
    currency: account.currency,
    balance: account.balance.toFixed(),
  })),
});

/**
 * Every balance valued in the user's currency through each currency's exchange rate (its
 * value in JPY); cut to 16 places, as the margin is, when the user's rate does not divide it.
 */
const getMainAsset: ExchangeHandlerOf<'getMainAsset'> = ({ journal: { exchange }, caller }) => {
  const userId = actingUser(caller);
  const currency = exchange.users.get(userId)?.currency ?? 'JPY';
  const rate = (code: string) => exchange.currencies.get(code)?.exchangeRate ?? new D(0);
  const inJpy = ownAccounts(exchange, userId).reduce(
    (sum, account) => sum.plus(account.balance.times(rate(account.currency))),
    new D(0),
  );
  const own = rate(currency);
  const total = own.isZero() ? inJpy : inJpy.div(own).toDecimalPlaces(16, D.ROUND_DOWN);
  return { status: 200, body: { currency, total_amount: total.toFixed() } };
};

const getReservedBalanceDetails: ExchangeHandlerOf<'getReservedBalanceDetails'> = ({
  journal: { exchange },
  caller,
  path,
}) => {
  const currency = path.currency ?? '';
  if (!exchange.currencies.has(currency)) throw new NotFound('Currency not found');
  const userId = actingUser(caller);
  const reserved = exchange.account(userId, currency)?.reserved ?? new D(0);
  return {
    status: 200,
    body: {
      currency,
      reserved_balance: reserved.toFixed(),
      details: reservedHolders(exchange, userId, currency).map((holder) => ({
        holder_type: holder.type,
        id: holder.id,
        amount: holder.amount.toFixed(),
      })),
    },
  };
};

const listFiatAccounts: ExchangeHandlerOf<'listFiatAccounts'> = ({ journal, caller }) => ({
  status: 200,
  body: accountsOf(journal.exchange, actingUser(caller)).fiat_accounts,
});

const listCryptoAccounts: ExchangeHandlerOf<'listCryptoAccounts'> = ({ journal, caller }) => ({
  status: 200,
  body: accountsOf(journal.exchange, actingUser(caller)).crypto_accounts,
});

export const ledgerHandlers = {
  listBalanceHistory,
  listTransactions,
  listAccountBalances,
  getMainAsset,
  getReservedBalanceDetails,
  listFiatAccounts,
  listCryptoAccounts,
} satisfies Handlers;
