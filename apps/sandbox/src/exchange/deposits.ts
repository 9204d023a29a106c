import { NotFound, Refusal } from '../handling/errors.js';
import { type ExchangeHandlerOf, type Handlers, later } from '../handling/operation.js';
import type { Journal } from '../state/journal.js';
import { D, type Deposit } from '../state/records.js';
import { actingUser } from './caller.js';
import { finerThan } from './currencies.js';
import { houseUserId, postEntry } from './ledger.js';
import { pageFrom } from './paging.js';

const decimal = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * Credits a deposit received for `userId`: what the exchange does once funds arrive, which no
 * call of the interface does (test control does it). Refuses naming the field.
 */
export function creditDeposit(
  journal: Journal,
  asked: { userId: number; currency: string; amount: string },
  now: number,
): Deposit {
  // The house is the exchange's own account, not a user a deposit is received for.
  if (asked.userId === houseUserId || !journal.exchange.users.has(asked.userId)) {
    throw new NotFound('User not found', 'user_id');
  }
  const currency = journal.exchange.currencies.get(asked.currency);
  if (!currency) throw new Refusal('currency', 'not_found');
  if (!currency.depositable) throw new Refusal('currency', 'not_depositable');
  if (asked.amount.length > 32 || !decimal.test(asked.amount) || new D(asked.amount).lte(0)) {
    throw new Refusal('amount', 'valid_amount');
  }
  const amount = new D(asked.amount);
  if (finerThan(currency, amount)) {
    throw new Refusal('amount', 'too_many_decimals');
  }
  const id = journal.exchange.next.deposit++;
  const deposit = journal.add('deposit', {
    id,
    userId: asked.userId,
    currency: currency.code,
    amount,
    state: 'received',
    transactionHash: `sandbox-deposit-${id}`,
    createdAt: now,
    updatedAt: now,
  });
  postEntry(journal, {
    userId: asked.userId,
    currency: currency.code,
    amount,
    sourceAction: 'funding',
    source: { type: 'FundInfo', id },
    now,
  });
  return deposit;
}

export const fundInfoView = (deposit: Deposit) => ({
  id: deposit.id,
  currency: deposit.currency,
  amount: deposit.amount.toFixed(),
  state: deposit.state,
  transaction_hash: deposit.transactionHash,
  created_at: Math.floor(deposit.createdAt / 1000),
  updated_at: Math.floor(deposit.updatedAt / 1000),
});

/** The caller's deposits, of one currency if asked, newest first: history, read paged. */
const listFundInfos: ExchangeHandlerOf<'listFundInfos'> = ({ caller, query }) => {
  const userId = actingUser(caller);
  const { limit, page, currency } = query;
  return later(async (history) => {
    const found = await history.deposits(userId, currency, (page - 1) * limit, limit);
    const models = found.rows.map(fundInfoView);
    return { status: 200 as const, body: pageFrom(found.total, models, limit, page) };
  });
};

export const depositHandlers = { listFundInfos } satisfies Handlers;
