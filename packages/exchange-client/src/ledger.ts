import type {
  AccountBalance,
  CryptoAccount,
  FiatAccount,
  LedgerEntry,
  MainAsset,
  operations as Operations,
  ReservedBalanceDetails,
  Transaction,
  TransactionList,
} from '@exchange-kit/contract/exchange';
import type { PerCallOptions } from '@exchange-kit/core';
import type { Call } from './api.js';
import { everyRow } from './every-row.js';

export type {
  AccountBalance,
  CryptoAccount,
  FiatAccount,
  LedgerEntry,
  LedgerSourceAction,
  MainAsset,
  ReservedBalanceDetail,
  ReservedBalanceDetails,
  Transaction,
  TransactionList,
} from '@exchange-kit/contract/exchange';

/** Filters of `ledger.history`: `currency`, `source_action`, `timestamp_gte`, `timestamp_lte`, `limit`. */
export type BalanceHistoryQuery = NonNullable<
  Operations['listBalanceHistory']['parameters']['query']
>;
/** Filters and page of `ledger.transactions`: `currency`, `transaction_type`, `limit`, `page`. */
export type ListTransactionsQuery = NonNullable<
  Operations['listTransactions']['parameters']['query']
>;

/** The caller's ledger: every change of its balances. */
export function ledgerCalls(call: Call) {
  return {
    /**
     * The caller's ledger entries, newest first: every change of a balance with the balance
     * after it and what caused it (`source_action`, `source_object_type`, `source_object_id`).
     */
    history(query: BalanceHistoryQuery = {}, options?: PerCallOptions): Promise<LedgerEntry[]> {
      return call('listBalanceHistory', { query }, options);
    },
    /** One page of the same entries as transactions, newest first. */
    transactions(
      query: ListTransactionsQuery = {},
      options?: PerCallOptions,
    ): Promise<TransactionList> {
      return call('listTransactions', { query }, options);
    },
    /** Every transaction matching the filters, fetching page after page as the loop asks. */
    iterateTransactions(
      query: Omit<ListTransactionsQuery, 'page'> = {},
      options?: PerCallOptions,
    ): AsyncGenerator<Transaction, void, undefined> {
      return everyRow((page) => call('listTransactions', { query: { ...query, page } }, options));
    },
  };
}

/** The caller's own accounts, beyond `GET /accounts`: balances, their value, what holds them. */
export function accountCalls(call: Call) {
  return {
    /** Each account's currency and balance. */
    balances(options?: PerCallOptions): Promise<AccountBalance[]> {
      return call('listAccountBalances', {}, options);
    },
    /** Every balance valued in the caller's currency. */
    mainAsset(options?: PerCallOptions): Promise<MainAsset> {
      return call('getMainAsset', {}, options);
    },
    /** What holds the reserved balance in `currency`: each order, position and withdrawal waiting, with its amount. */
    reservedDetails(currency: string, options?: PerCallOptions): Promise<ReservedBalanceDetails> {
      return call('getReservedBalanceDetails', { path: { currency } }, options);
    },
    fiat(options?: PerCallOptions): Promise<FiatAccount[]> {
      return call('listFiatAccounts', {}, options);
    },
    /** Opens the caller's account of a fiat `currency`, empty; one it has is returned as it stands. */
    openFiat(currency: string, options?: PerCallOptions): Promise<FiatAccount> {
      return call('createFiatAccount', { body: { currency } }, options);
    },
    crypto(options?: PerCallOptions): Promise<CryptoAccount[]> {
      return call('listCryptoAccounts', {}, options);
    },
  };
}
