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
  paths,
} from '@exchange-kit/contract/exchange';
import type { Api, PerCallOptions, WithDecimalInputs } from '@exchange-kit/core';
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
 * `withdrawals` and `deposits` of the exchange client. A withdrawal holds its amount plus the
 * currency's fee until the exchange processes it (both leave the balance), declines it, or
 * its owner cancels it while it is still pending.
 */
export function withdrawalMethods(call: Api<paths, Operations>['call']) {
  const crypto = {
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
    list(query: ListCryptoWithdrawalsQuery = {}, options?: PerCallOptions) {
      return call('listCryptoWithdrawals', { query }, options) as Promise<CryptoWithdrawalList>;
    },
    /** Every crypto withdrawal matching the filters, page after page as the loop asks. */
    iterate(query: Omit<ListCryptoWithdrawalsQuery, 'page'> = {}, options?: PerCallOptions) {
      return everyRow((page) => crypto.list({ ...query, page }, options));
    },
    /** Cancels a pending withdrawal; another state is a ValidationError naming it (`state`). */
    cancel(id: number, options?: PerCallOptions): Promise<CryptoWithdrawal> {
      return call('cancelCryptoWithdrawal', { path: { withdrawal_id: id } }, options);
    },
    /** The networks `currency` is withdrawn on, with their fees and minimums. */
    networks(currency: string, options?: PerCallOptions): Promise<CryptoNetwork[]> {
      return call('listCryptoNetworks', { query: { currency } }, options);
    },
  };
  const fiat = {
    /** Asks to send fiat to one of the caller's bank accounts (`bankAccounts()`). */
    create(withdrawal: FiatWithdrawalInput, options?: PerCallOptions): Promise<FiatWithdrawal> {
      const body = { withdrawal } as FiatWithdrawalCreate;
      return call('createFiatWithdrawal', { body }, options);
    },
    list(query: ListFiatWithdrawalsQuery = {}, options?: PerCallOptions) {
      return call('listFiatWithdrawals', { query }, options) as Promise<FiatWithdrawalList>;
    },
    iterate(query: Omit<ListFiatWithdrawalsQuery, 'page'> = {}, options?: PerCallOptions) {
      return everyRow((page) => fiat.list({ ...query, page }, options));
    },
    cancel(id: number, options?: PerCallOptions): Promise<FiatWithdrawal> {
      return call('cancelFiatWithdrawal', { path: { withdrawal_id: id } }, options);
    },
    /** The bank accounts fiat withdrawals may go to. */
    bankAccounts(options?: PerCallOptions): Promise<BankAccount[]> {
      return call('listBankAccounts', {}, options);
    },
  };
  const deposits = {
    /** One page of the caller's deposit requests and received deposits, newest first. */
    list(query: ListFundInfosQuery = {}, options?: PerCallOptions) {
      return call('listFundInfos', { query }, options) as Promise<FundInfoList>;
    },
    iterate(query: Omit<ListFundInfosQuery, 'page'> = {}, options?: PerCallOptions) {
      return everyRow((page) => deposits.list({ ...query, page }, options));
    },
  };
  return { withdrawals: { crypto, fiat }, deposits };
}
