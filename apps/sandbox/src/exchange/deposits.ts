import { NotFound, Refusal } from '../handling/errors.js';
import type { ExchangeHandlerOf, Handlers } from '../handling/operation.js';
import { D, type Deposit } from '../state/exchange-state.js';
import type { Journal } from '../state/journal.js';
import { actingUser } from './caller.js';
import { postEntry } from './ledger.js';
import { pageOf } from './paging.js';

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
  if (!journal.exchange.users.has(asked.userId)) throw new NotFound('User not found', 'user_id');
  const currency = journal.exchange.currencies.get(asked.currency);
  if (!currency) throw new Refusal('currency', 'not_found');
  if (!currency.depositable) throw new Refusal('currency', 'not_depositable');
  if (asked.amount.length > 32 || !decimal.test(asked.amount) || new D(asked.amount).lte(0)) {
    throw new Refusal('amount', 'valid_amount');
  }
  const amount = new D(asked.amount);
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

const listFundInfos: ExchangeHandlerOf<'listFundInfos'> = ({ journal, caller, query }) => {
  const userId = actingUser(caller);
  const rows = journal.exchange
    .depositsOfUser(userId)
    .filter((deposit) => query.currency === undefined || deposit.currency === query.currency)
    .sort((a, b) => b.id - a.id);
  return { status: 200, body: pageOf(rows, query.limit, query.page, fundInfoView) };
};

export const depositHandlers = { listFundInfos } satisfies Handlers;
