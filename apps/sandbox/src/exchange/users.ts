import { channelAddress } from '@exchange-kit/contract/events';
import type { components } from '@exchange-kit/contract/exchange';
import { NotAuthenticated } from '../handling/errors.js';
import type { ExchangeHandlerOf, Handlers } from '../handling/operation.js';
import type { ExchangeState } from '../state/exchange-state.js';
import { type Account, type Currency, D } from '../state/records.js';
import { actingUser } from './caller.js';
import { currencyOfType } from './currencies.js';
import { depositAddress } from './ledger.js';
import { tradingAccountIds } from './trading-accounts.js';

// What an approved OAuth request grants a third-party application: it reads, and never trades
// or withdraws. One's own token may do everything.
export const oauthPermissions: readonly string[] = ['read_accounts', 'read_user'];
const tokenPermissions = ['read_accounts', 'read_user', 'trade', 'withdraw'];

const getUserContext: ExchangeHandlerOf<'getUserContext'> = ({ journal, caller }) => {
  const { users } = journal.exchange;
  const user = users.get(actingUser(caller));
  if (!user) throw new NotAuthenticated('API Authentication failed');
  let appVendorId = user.appVendorId;
  if (caller.kind === 'oauth')
    appVendorId = users.get(caller.appUserId)?.appVendorId ?? appVendorId;
  const verified = user.kycStatus === 'approved';
  return {
    status: 200,
    body: {
      user_id: user.id,
      token_id: caller.kind === 'anonymous' || caller.kind === 'session' ? '' : caller.tokenId,
      trading_account_ids: tradingAccountIds(journal.exchange, user.id),
      app_vendor_id: appVendorId,
      country: user.country,
      status: user.kycStatus,
      currency: user.currency,
      language: user.language,
      user_type: 'individual',
      has_proof_address: verified,
      has_id_document: verified,
      avatar: null,
      affiliate_code: user.affiliateCode,
      is_fully_verified: verified,
      email_confirmed_at: user.emailConfirmedAtS,
      declined_reason: null,
      modules: { exchange: ['trade', 'withdraw'] },
      first_name: user.firstName,
      last_name: user.lastName,
      email: user.email,
      permissions: [...(caller.kind === 'oauth' ? oauthPermissions : tokenPermissions)],
    },
  };
};

/** The user's accounts; crypto ones show the range of the currency's loan book offers. */
const getAccounts: ExchangeHandlerOf<'getAccounts'> = ({
  journal: { exchange: state },
  caller,
}) => ({
  status: 200,
  body: accountsOf(state, actingUser(caller)),
});

/** `userId`'s accounts, crypto and fiat, as `GET /accounts` shows them. */
export function accountsOf(
  state: ExchangeState,
  userId: number,
): components['schemas']['Accounts'] {
  const accounts = [...(state.accounts.get(userId)?.values() ?? [])].sort((a, b) => a.id - b.id);
  const rates = (currency: string) => {
    const book = state.loanBook.get(currency);
    const all = [...(book?.bid ?? []), ...(book?.ask ?? [])].map((level) => level.rate);
    const byValue = (a: string, b: string) => new D(a).cmp(b);
    const sorted = all.sort(byValue);
    return { lowest: sorted[0] ?? null, highest: sorted.at(-1) ?? null };
  };
  const view = (account: Account, currency: Currency) => {
    const channel = channelAddress('userAccount', { userId, currency: account.currency });
    return {
      id: account.id,
      currency: account.currency,
      balance: account.balance.toFixed(),
      reserved_balance: account.reserved.toFixed(),
      push_channel: channel,
      pusher_channel: channel,
      currency_symbol: currency.symbol,
      currency_type: currency.currencyType,
    };
  };
  const withCurrency = accounts.flatMap((account) => {
    const currency = state.currencies.get(account.currency);
    return currency ? [{ account, currency }] : [];
  });
  return {
    crypto_accounts: withCurrency
      .filter(({ currency }) => currency.currencyType === 'crypto')
      .map(({ account, currency }) => {
        const { lowest, highest } = rates(account.currency);
        return {
          ...view(account, currency),
          currency_type: 'crypto' as const,
          lowest_offer_interest_rate: lowest,
          highest_offer_interest_rate: highest,
          address: account.address,
          minimum_withdraw: currency.minimumWithdrawal.toFixed(),
        };
      }),
    fiat_accounts: withCurrency
      .filter(({ currency }) => currency.currencyType === 'fiat')
      .map(({ account, currency }) => ({
        ...view(account, currency),
        currency_type: 'fiat' as const,
        lowest_offer_interest_rate: null,
        highest_offer_interest_rate: null,
        send_to_btc_address: null,
        exchange_rate: currency.exchangeRate.toFixed(),
      })),
  };
}

/** Opens the caller's empty account of a fiat currency; one it has is answered as it stands. */
const createFiatAccount: ExchangeHandlerOf<'createFiatAccount'> = ({ journal, caller, body }) => {
  const userId = actingUser(caller);
  const currency = currencyOfType(journal, body.currency, 'fiat');
  journal.openAccount(userId, currency.code, depositAddress(userId, currency.code));
  const opened = accountsOf(journal.exchange, userId).fiat_accounts.find(
    (account) => account.currency === currency.code,
  );
  if (!opened) throw new Error(`The ${currency.code} account of user ${userId} did not open`);
  return { status: 200, body: opened };
};

export const userHandlers: Handlers = { getUserContext, getAccounts, createFiatAccount };
