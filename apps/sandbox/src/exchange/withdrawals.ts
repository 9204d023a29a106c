import { Refusal } from '../handling/errors.js';
import { type ExchangeHandlerOf, type Handlers, later } from '../handling/operation.js';
import type { Journal } from '../state/journal.js';
import { type Currency, D, type User, type Withdrawal } from '../state/records.js';
import { actingUser } from './caller.js';
import { currencyOfType, finerThan } from './currencies.js';
import { withdrawalFee } from './fee-rules.js';
import { pageFrom } from './paging.js';
import { heldInMemory, holdFor, moveWithdrawal, refusedAsStored } from './withdrawal-moves.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** The one bank account each user has: the sandbox pays out to no real bank. */
export function bankAccountOf(user: User) {
  return {
    id: user.id,
    bank_name: 'Sandbox Bank',
    account_holder: `${user.firstName} ${user.lastName}`,
    account_number: `****${String(user.id).slice(-4)}`,
    currency: user.currency,
  };
}

/** The currencies whose network takes a memo: XRP's, as its destination tag. */
const memoNetworks: ReadonlySet<string> = new Set(['XRP']);

/**
 * The networks named otherwise than their currency, as exchanges name them: Ether goes on
 * ERC20, as the exchange's clients (ccxt's `liquid` among them) name it. Every other currency
 * goes on its own network, named by its code.
 */
const carriedOn: Readonly<Record<string, string>> = { ETH: 'ERC20' };

/** The one network each crypto currency is withdrawn on here. */
export function networkOf(currency: Currency) {
  return {
    network: carriedOn[currency.code] ?? currency.code,
    currency: currency.code,
    withdrawal_fee: currency.withdrawalFee.toFixed(),
    minimum_withdrawal: currency.minimumWithdrawal.toFixed(),
    memo_supported: memoNetworks.has(currency.code),
  };
}

const address = /^[A-Za-z0-9:_]{20,128}$/;

/** A currency of `type` that can be withdrawn; refuses naming `currency` otherwise. */
function withdrawable(journal: Journal, code: string, type: Currency['currencyType']): Currency {
  const currency = currencyOfType(journal, code, type);
  if (!currency.withdrawable) throw new Refusal('currency', 'not_withdrawable');
  return currency;
}

/** The amount asked for: above zero, at least the minimum, in whole units of the currency. */
function amountOf(text: string, currency: Currency): D {
  const amount = new D(text);
  if (amount.lte(0) || amount.lt(currency.minimumWithdrawal) || finerThan(currency, amount)) {
    throw new Refusal('amount', 'valid_amount');
  }
  return amount;
}

function newWithdrawal(
  journal: Journal,
  fields: Pick<Withdrawal, 'userId' | 'kind' | 'currency' | 'amount' | 'fee'> & Partial<Withdrawal>,
  now: number,
): Withdrawal {
  const withdrawal: Withdrawal = {
    address: null,
    network: null,
    paymentId: null,
    memoType: null,
    memoValue: null,
    transactionHash: null,
    bankAccountId: null,
    ...fields,
    id: journal.exchange.next.withdrawal++,
    state: 'pending',
    createdAt: now,
    updatedAt: now,
  };
  journal.add('withdrawal', withdrawal);
  holdFor(journal, withdrawal);
  return withdrawal;
}

export function cryptoView(withdrawal: Withdrawal) {
  return {
    id: withdrawal.id,
    address: withdrawal.address ?? '',
    amount: withdrawal.amount.toFixed(),
    currency: withdrawal.currency,
    state: withdrawal.state,
    withdrawal_fee: withdrawal.fee.toFixed(),
    transaction_hash: withdrawal.transactionHash,
    network: withdrawal.network,
    payment_id: withdrawal.paymentId,
    memo_type: withdrawal.memoType,
    memo_value: withdrawal.memoValue,
    created_at: seconds(withdrawal.createdAt),
    updated_at: seconds(withdrawal.updatedAt),
  };
}

export function fiatView(withdrawal: Withdrawal) {
  return {
    id: withdrawal.id,
    amount: withdrawal.amount.toFixed(),
    currency: withdrawal.currency,
    state: withdrawal.state,
    withdrawal_fee: withdrawal.fee.toFixed(),
    bank_account_id: withdrawal.bankAccountId ?? 0,
    created_at: seconds(withdrawal.createdAt),
    updated_at: seconds(withdrawal.updatedAt),
  };
}

const createCryptoWithdrawal: ExchangeHandlerOf<'createCryptoWithdrawal'> = ({
  journal,
  caller,
  body,
  now,
}) => {
  const asked = body.crypto_withdrawal;
  const currency = withdrawable(journal, asked.currency, 'crypto');
  const amount = amountOf(asked.amount, currency);
  if (!address.test(asked.address)) throw new Refusal('address', 'valid_address');
  const { network, memo_supported } = networkOf(currency);
  // Clients send network names in either case (ccxt upper-cases what it is given).
  if (asked.network !== undefined && asked.network.toUpperCase() !== network.toUpperCase()) {
    throw new Refusal('network', 'not_a_network_of_the_currency');
  }
  for (const field of ['payment_id', 'memo_type', 'memo_value'] as const) {
    if (!memo_supported && asked[field] !== undefined) {
      throw new Refusal(field, 'not_supported_by_the_network');
    }
  }
  const withdrawal = newWithdrawal(
    journal,
    {
      userId: actingUser(caller),
      kind: 'crypto',
      currency: currency.code,
      amount,
      fee: withdrawalFee(currency),
      address: asked.address,
      network,
      paymentId: asked.payment_id ?? null,
      memoType: asked.memo_type ?? null,
      memoValue: asked.memo_value ?? null,
    },
    now,
  );
  return { status: 200, body: cryptoView(withdrawal) };
};

const createFiatWithdrawal: ExchangeHandlerOf<'createFiatWithdrawal'> = ({
  journal,
  caller,
  body,
  now,
}) => {
  const asked = body.withdrawal;
  const userId = actingUser(caller);
  const currency = withdrawable(journal, asked.currency, 'fiat');
  const amount = amountOf(asked.amount, currency);
  const user = journal.exchange.users.get(userId);
  const account = user && bankAccountOf(user);
  if (!account || account.id !== asked.bank_account_id) {
    throw new Refusal('bank_account_id', 'not_found');
  }
  // A bank account is paid out in its own currency only.
  if (account.currency !== currency.code)
    throw new Refusal('currency', 'not_the_bank_account_currency');
  const withdrawal = newWithdrawal(
    journal,
    {
      userId,
      kind: 'fiat',
      currency: currency.code,
      amount,
      fee: withdrawalFee(currency),
      bankAccountId: asked.bank_account_id,
    },
    now,
  );
  return { status: 200, body: fiatView(withdrawal) };
};

/** A page of `userId`'s withdrawals of `kind`, newest first, as the query's filters pick them. */
function withdrawalsPage<Model>(
  userId: number,
  kind: Withdrawal['kind'],
  query: { limit: number; page: number; currency?: string; state?: Withdrawal['state'] },
  view: (withdrawal: Withdrawal) => Model,
) {
  const { limit, page, currency, state } = query;
  return later(async (history) => {
    const filter = { kind, currency, state };
    const found = await history.withdrawals(userId, filter, (page - 1) * limit, limit);
    return { status: 200 as const, body: pageFrom(found.total, found.rows.map(view), limit, page) };
  });
}

const listCryptoWithdrawals: ExchangeHandlerOf<'listCryptoWithdrawals'> = ({ caller, query }) =>
  withdrawalsPage(actingUser(caller), 'crypto', query, cryptoView);

const listFiatWithdrawals: ExchangeHandlerOf<'listFiatWithdrawals'> = ({ caller, query }) =>
  withdrawalsPage(actingUser(caller), 'fiat', query, fiatView);

/**
 * The owner's cancel of their withdrawal `id` of `kind`, answered as `view` shows it; one
 * memory no longer holds has ended, and the store answers for it.
 */
function cancel<Model>(
  journal: Journal,
  mover: { userId: number; kind: Withdrawal['kind'] },
  id: number,
  now: number,
  view: (withdrawal: Withdrawal) => Model,
) {
  if (!heldInMemory(journal, id)) return refusedAsStored(mover, id);
  return { status: 200 as const, body: view(moveWithdrawal(journal, mover, id, 'cancelled', now)) };
}

const cancelCryptoWithdrawal: ExchangeHandlerOf<'cancelCryptoWithdrawal'> = (context) => {
  const mover = { userId: actingUser(context.caller), kind: 'crypto' as const };
  return cancel(context.journal, mover, context.path.withdrawal_id, context.now, cryptoView);
};

const cancelFiatWithdrawal: ExchangeHandlerOf<'cancelFiatWithdrawal'> = (context) => {
  const mover = { userId: actingUser(context.caller), kind: 'fiat' as const };
  return cancel(context.journal, mover, context.path.withdrawal_id, context.now, fiatView);
};

const listCryptoNetworks: ExchangeHandlerOf<'listCryptoNetworks'> = ({ journal, query }) => {
  const currency = journal.exchange.currencies.get(query.currency);
  if (currency?.currencyType !== 'crypto') throw new Refusal('currency', 'not_found');
  return { status: 200, body: [networkOf(currency)] };
};

const listBankAccounts: ExchangeHandlerOf<'listBankAccounts'> = ({ journal, caller }) => {
  const user = journal.exchange.users.get(actingUser(caller));
  return { status: 200, body: user ? [bankAccountOf(user)] : [] };
};

export const withdrawalHandlers = {
  createCryptoWithdrawal,
  listCryptoWithdrawals,
  cancelCryptoWithdrawal,
  listCryptoNetworks,
  listBankAccounts,
  createFiatWithdrawal,
  listFiatWithdrawals,
  cancelFiatWithdrawal,
} satisfies Handlers;
