import { toDecimalString } from '@exchange-kit/core';
import { type Handler, type Handlers, HttpError } from '../http/types.js';
import { actingUser } from './caller.js';

const decimal = (value: string) => toDecimalString(value, 'stored decimal');

interface UserRow {
  id: number;
  email: string;
  first_name: string;
  last_name: string;
  country: string;
  currency: string;
  language: string;
  kyc_status: string;
  app_vendor_id: number;
  affiliate_code: string;
  email_confirmed_at_s: number;
}

// What a third-party application may do for the user; one's own token may do everything.
const oauthPermissions = ['read_accounts', 'read_user'];
const tokenPermissions = ['read_accounts', 'read_user', 'trade', 'withdraw'];

const getUserContext: Handler = async ({ db, caller }) => {
  const userId = actingUser(caller);
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [userId]);
  const user = rows[0];
  if (!user) throw new HttpError(401, 'API Authentication failed');
  let appVendorId = user.app_vendor_id;
  if (caller.kind === 'oauth') {
    const { rows: app } = await db.query<{ app_vendor_id: number }>(
      'SELECT app_vendor_id FROM users WHERE id = $1',
      [caller.appUserId],
    );
    appVendorId = app[0]?.app_vendor_id ?? appVendorId;
  }
  const verified = user.kyc_status === 'approved';
  return {
    status: 200,
    body: {
      user_id: user.id,
      token_id: caller.kind === 'anonymous' || caller.kind === 'session' ? '' : caller.tokenId,
      trading_account_ids: [user.id],
      app_vendor_id: appVendorId,
      country: user.country,
      status: user.kyc_status,
      currency: user.currency,
      language: user.language,
      user_type: 'individual',
      has_proof_address: verified,
      has_id_document: verified,
      avatar: null,
      affiliate_code: user.affiliate_code,
      is_fully_verified: verified,
      email_confirmed_at: user.email_confirmed_at_s,
      declined_reason: null,
      modules: { exchange: ['trade', 'withdraw'] },
      first_name: user.first_name,
      last_name: user.last_name,
      email: user.email,
      permissions: caller.kind === 'oauth' ? oauthPermissions : tokenPermissions,
    },
  };
};

interface AccountRow {
  id: number;
  currency: string;
  balance: string;
  reserved_balance: string;
  address: string;
  currency_type: 'crypto' | 'fiat';
  symbol: string;
  minimum_withdrawal: string;
  exchange_rate: string;
  lowest_rate: string | null;
  highest_rate: string | null;
}

/** The user's accounts; crypto ones show the range of the currency's loan book offers. */
const getAccounts: Handler = async ({ db, caller }) => {
  const userId = actingUser(caller);
  const { rows } = await db.query<AccountRow>(
    `SELECT a.id, a.currency, a.balance, a.reserved_balance, a.address, c.currency_type, c.symbol,
       c.minimum_withdrawal, c.exchange_rate,
       (SELECT min(rate) FROM loan_book_levels l WHERE l.currency = a.currency) AS lowest_rate,
       (SELECT max(rate) FROM loan_book_levels l WHERE l.currency = a.currency) AS highest_rate
     FROM accounts a JOIN currencies c ON c.code = a.currency
     WHERE a.user_id = $1 ORDER BY a.id`,
    [userId],
  );
  const common = (row: AccountRow) => {
    const channel = `user_${userId}_account_${row.currency.toLowerCase()}`;
    return {
      id: row.id,
      currency: row.currency,
      balance: decimal(row.balance),
      reserved_balance: decimal(row.reserved_balance),
      push_channel: channel,
      pusher_channel: channel,
      currency_symbol: row.symbol,
      currency_type: row.currency_type,
    };
  };
  return {
    status: 200,
    body: {
      crypto_accounts: rows
        .filter((row) => row.currency_type === 'crypto')
        .map((row) => ({
          ...common(row),
          lowest_offer_interest_rate: row.lowest_rate,
          highest_offer_interest_rate: row.highest_rate,
          address: row.address,
          minimum_withdraw: decimal(row.minimum_withdrawal),
        })),
      fiat_accounts: rows
        .filter((row) => row.currency_type === 'fiat')
        .map((row) => ({
          ...common(row),
          lowest_offer_interest_rate: null,
          highest_offer_interest_rate: null,
          send_to_btc_address: null,
          exchange_rate: decimal(row.exchange_rate),
        })),
    },
  };
};

export const userHandlers: Handlers = { getUserContext, getAccounts };
