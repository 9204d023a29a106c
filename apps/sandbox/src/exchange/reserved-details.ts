import type { components } from '@exchange-kit/contract/exchange';
import type { D, ExchangeState } from '../state/exchange-state.js';

/** One holder of part of a reserved balance. */
export interface ReservedHolder {
  type: components['schemas']['ReservedBalanceHolderType'];
  id: number;
  amount: D;
}

type HolderSource = (state: ExchangeState, userId: number, currency: string) => ReservedHolder[];

/** Each live order's hold, as `syncReserve` set it. */
const orders: HolderSource = (state, userId, currency) =>
  (state.ordersByUser.get(userId) ?? [])
    .filter((order) => order.reservedCurrency === currency && !order.reservedAmount.isZero())
    .map((order) => ({ type: 'order', id: order.id, amount: order.reservedAmount }));

/** Each open position's margin. */
const positions: HolderSource = (state, userId, currency) =>
  [...state.positions.values()]
    .filter(
      (position) =>
        position.userId === userId &&
        position.fundingCurrency === currency &&
        !position.margin.isZero(),
    )
    .map((position) => ({ type: 'position', id: position.id, amount: position.margin }));

/**
 * Everything that can hold a reserved balance: another kind of hold (a withdrawal waiting,
 * a loan bid) is one more source here, and the details and the invariant that they sum to
 * the reserved balance follow.
 */
const holderSources: readonly HolderSource[] = [orders, positions];

/** What holds `userId`'s reserved balance in `currency`; the amounts sum to it. */
export function reservedHolders(
  state: ExchangeState,
  userId: number,
  currency: string,
): ReservedHolder[] {
  return holderSources.flatMap((source) => source(state, userId, currency));
}
