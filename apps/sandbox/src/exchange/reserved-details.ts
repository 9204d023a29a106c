import type { components } from '@exchange-kit/contract/exchange';
import { hasFlag } from '@exchange-kit/contract/state-tables';
import type { ExchangeState } from '../state/exchange-state.js';
import type { D } from '../state/records.js';
import { availableOf, liveLoanBids } from './loan-bids.js';
import { heldBy } from './withdrawal-moves.js';

/** One holder of part of a reserved balance. */
export interface ReservedHolder {
  type: components['schemas']['ReservedBalanceHolderType'];
  id: number;
  amount: D;
}

type HolderSource = (state: ExchangeState, userId: number, currency: string) => ReservedHolder[];

/** Each live order's hold, as `syncReserve` set it. */
const orders: HolderSource = (state, userId, currency) =>
  state.ordersByUser
    .of(userId)
    .filter((order) => order.reservedCurrency === currency && !order.reservedAmount.isZero())
    .map((order) => ({ type: 'order', id: order.id, amount: order.reservedAmount }));

/** Each open position's margin. */
const positions: HolderSource = (state, userId, currency) =>
  state
    .positionsOfUser(userId)
    .filter((position) => position.fundingCurrency === currency && !position.margin.isZero())
    .map((position) => ({ type: 'position', id: position.id, amount: position.margin }));

/** Each withdrawal not yet in a terminal state: its amount plus its fee, as `holdFor` held it. */
const withdrawals: HolderSource = (state, userId, currency) =>
  state
    .withdrawalsOfUser(userId)
    .filter(
      (withdrawal) =>
        withdrawal.currency === currency && !hasFlag('withdrawal', withdrawal.state, 'terminal'),
    )
    .map((withdrawal) => ({ type: 'withdrawal', id: withdrawal.id, amount: heldBy(withdrawal) }));

/** Each live loan bid: its quantity but what is lent from it. */
const loanBids: HolderSource = (state, userId, currency) =>
  liveLoanBids(state, currency)
    .filter((bid) => bid.userId === userId && !availableOf(bid).isZero())
    .map((bid) => ({ type: 'loan_bid', id: bid.id, amount: availableOf(bid) }));

/**
 * Everything that can hold a reserved balance: another kind of hold is one more source here,
 * and the details and the invariant that they sum to the reserved balance follow.
 */
const holderSources: readonly HolderSource[] = [orders, positions, withdrawals, loanBids];

/** What holds `userId`'s reserved balance in `currency`; the amounts sum to it. */
export function reservedHolders(
  state: ExchangeState,
  userId: number,
  currency: string,
): ReservedHolder[] {
  return holderSources.flatMap((source) => source(state, userId, currency));
}
