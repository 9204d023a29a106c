import type { TradingAccount } from '@exchange-kit/contract/exchange';
import type { PerCallOptions } from '@exchange-kit/core';
import type { Call } from './api.js';

export type { TradingAccount, TradingAccountSummary } from '@exchange-kit/contract/exchange';

/** The calls on trading accounts: one per margin product, funded in its quote currency. */
export function tradingAccountCalls(call: Call) {
  return {
    /** The caller's trading accounts, with their figures at the mark price. */
    list(options?: PerCallOptions): Promise<TradingAccount[]> {
      return call('listTradingAccounts', {}, options);
    },
    /** One of the caller's trading accounts. */
    get(tradingAccountId: number, options?: PerCallOptions): Promise<TradingAccount> {
      return call('getTradingAccount', { path: { trading_account_id: tradingAccountId } }, options);
    },
    /** Sets the leverage level new margin orders on the account's product take when they name none. */
    setLeverage(
      tradingAccountId: number,
      leverageLevel: number,
      options?: PerCallOptions,
    ): Promise<TradingAccount> {
      return call(
        'updateTradingAccount',
        {
          path: { trading_account_id: tradingAccountId },
          body: { trading_account: { leverage_level: leverageLevel } },
        },
        options,
      );
    },
  };
}
