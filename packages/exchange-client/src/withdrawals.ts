import type {
  BankAccount,
  CryptoNetwork,
  CryptoWithdrawal,
  CryptoWithdrawalCreate,
  CryptoWithdrawalList,
  FiatWithdrawal,
  FiatWithdrawalCreate,
  FiatWithdrawalList,
  FundInfoList,
  operations as Operations,
  operationTable,
} from '@exchange-kit/contract/exchange';
import type { PerCallOptions, WithDecimalInputs } from '@exchange-kit/core';
import type { Call } from './api.js';
import { everyRow } from './every-row.js';

export type {
  BankAccount,
  CryptoNetwork,
  CryptoWithdrawal,
  CryptoWithdrawalList,
  FiatWithdrawal,
  FiatWithdrawalList,
  FundInfo,
  FundInfoList,
  WithdrawalState,
} from '@exchange-kit/contract/exchange';

type Table = typeof operationTable;

/** A crypto withdrawal to ask for; `amount` may be a number, a decimal string or a Decimal. */
export type CryptoWithdrawalInput = WithDecimalInputs<
  CryptoWithdrawalCreate,
  Table['createCryptoWithdrawal']['requestDecimals']
>['crypto_withdrawal'];
/** A fiat withdrawal to one of the caller's bank accounts. */
export type FiatWithdrawalInput = WithDecimalInputs<
  FiatWithdrawalCreate,
  Table['createFiatWithdrawal']['requestDecimals']
>['withdrawal'];
export type ListCryptoWithdrawalsQuery = NonNullable<
  Operations['listCryptoWithdrawals']['parameters']['query']
>;
export type ListFiatWithdrawalsQuery = NonNullable<
  Operations['listFiatWithdrawals']['parameters']['query']
>;
export type ListFundInfosQuery = NonNullable<Operations['listFundInfos']['parameters']['query']>;

/**
 * `client.withdrawals`: crypto and fiat. A withdrawal holds its amount plus the currency's fee
 * until the exchange processes it (both leave the balance), declines it, or its owner cancels
 * it while it is still pending. Each method names its operation where it calls it, as the
 * docs' reference reads them.
 */
export function withdrawalCalls(call: Call) {
  return {
    crypto: {
      /**
       * Asks to send crypto to an address; `auth_code` goes beside the withdrawal, for an
       * exchange that asks for a second factor.
       */
      create(
        withdrawal: CryptoWithdrawalInput & Pick<CryptoWithdrawalCreate, 'auth_code'>,
        options?: PerCallOptions,
      ): Promise<CryptoWithdrawal> {
        const { auth_code, ...fields } = withdrawal;
        const body = {
          crypto_withdrawal: fields,
          ...(auth_code === undefined ? {} : { auth_code }),
        } as CryptoWithdrawalCreate;
        return call('createCryptoWithdrawal', { body }, options);
      },
      /** One page of the caller's crypto withdrawals, newest first. */
      list(
        query: ListCryptoWithdrawalsQuery = {},
        options?: PerCallOptions,
      ): Promise<CryptoWithdrawalList> {
        return call('listCryptoWithdrawals', { query }, options);
      },
      /** Every crypto withdrawal matching the filters, page after page as the loop asks. */
      iterate(query: Omit<ListCryptoWithdrawalsQuery, 'page'> = {}, options?: PerCallOptions) {
        return everyRow((page) =>
          call('listCryptoWithdrawals', { query: { ...query, page } }, options),
        );
      },
      /** Cancels a pending withdrawal; another state is a ValidationError naming it (`state`). */
      cancel(id: number, options?: PerCallOptions): Promise<CryptoWithdrawal> {
        return call('cancelCryptoWithdrawal', { path: { withdrawal_id: id } }, options);
      },
      /** The networks `currency` is withdrawn on, with their fees and minimums. */
      networks(currency: string, options?: PerCallOptions): Promise<CryptoNetwork[]> {
        return call('listCryptoNetworks', { query: { currency } }, options);
      },
    },
    fiat: {
      /** Asks to send fiat to one of the caller's bank accounts (`bankAccounts()`). */
      create(withdrawal: FiatWithdrawalInput, options?: PerCallOptions): Promise<FiatWithdrawal> {
        const body = { withdrawal } as FiatWithdrawalCreate;
        return call('createFiatWithdrawal', { body }, options);
      },
      /** One page of the caller's fiat withdrawals, newest first. */
      list(
        query: ListFiatWithdrawalsQuery = {},
        options?: PerCallOptions,
      ): Promise<FiatWithdrawalList> {
        return call('listFiatWithdrawals', { query }, options);
      },
      /** Every fiat withdrawal matching the filters, page after page as the loop asks. */
      iterate(query: Omit<ListFiatWithdrawalsQuery, 'page'> = {}, options?: PerCallOptions) {
        return everyRow((page) =>
          call('listFiatWithdrawals', { query: { ...query, page } }, options),
        );
      },
      /** Cancels a pending withdrawal; another state is a ValidationError naming it (`state`). */
      cancel(id: number, options?: PerCallOptions): Promise<FiatWithdrawal> {
        return call('cancelFiatWithdrawal', { path: { withdrawal_id: id } }, options);
      },
      /** The bank accounts fiat withdrawals may go to. */
      bankAccounts(options?: PerCallOptions): Promise<BankAccount[]> {
        return call('listBankAccounts', {}, options);
      },
    },
  };
}

/** `client.deposits`: deposit requests and received deposits. */
export function depositCalls(call: Call) {
  return {
    /** One page of the caller's deposits, newest first. */
    list(query: ListFundInfosQuery = {}, options?: PerCallOptions): Promise<FundInfoList> {
      return call('listFundInfos', { query }, options);
    },
    /** Every deposit matching the filters, page after page as the loop asks. */
    iterate(query: Omit<ListFundInfosQuery, 'page'> = {}, options?: PerCallOptions) {
      return everyRow((page) => call('listFundInfos', { query: { ...query, page } }, options));
    },
  };
}
