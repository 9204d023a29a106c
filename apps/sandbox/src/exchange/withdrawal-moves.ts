import { hasFlag, requirements } from '@exchange-kit/contract/state-tables';
import { NotFound, Refusal } from '../handling/errors.js';
import { type LaterReply, refusedFromHistory } from '../handling/operation.js';
import type { Journal } from '../state/journal.js';
import type { D, Withdrawal } from '../state/records.js';
import { adjustReserved, houseUserId, postEntry } from './ledger.js';

type WithdrawalState = Withdrawal['state'];

/**
 * The moves a withdrawal may make, `from>to`: the rows of the withdrawal table of
 * spec/state-tables.yaml, each from every state it is given in to the state it leads to.
 */
const moves: ReadonlySet<string> = new Set(
  requirements
    .filter((row) => row.table === 'withdrawal' && row.expect.next !== undefined)
    .flatMap((row) => (row.given ?? []).map((from) => `${from}>${row.expect.next}`)),
);

export const canMove = (from: WithdrawalState, to: WithdrawalState) => moves.has(`${from}>${to}`);

/** What a withdrawal holds of its owner's balance while it is not terminal. */
export const heldBy = (withdrawal: Withdrawal): D => withdrawal.amount.plus(withdrawal.fee);

/** Holds amount plus fee of the new withdrawal's owner's free balance; refuses when short. */
export function holdFor(journal: Journal, withdrawal: Withdrawal): void {
  adjustReserved(journal, withdrawal.userId, withdrawal.currency, heldBy(withdrawal));
}

/** Who moves a withdrawal: its owner, who sees only their own of one kind, or the exchange. */
export type Mover = { userId: number; kind: Withdrawal['kind'] } | 'exchange';

const notFound = () => new NotFound('Withdrawal not found');

/** Whether `withdrawal` is not one `mover` sees: another user's, or of the other kind. */
const hiddenFrom = (mover: Mover, withdrawal: Withdrawal) =>
  mover !== 'exchange' && (withdrawal.userId !== mover.userId || withdrawal.kind !== mover.kind);

/**
 * Whether memory holds the withdrawal `id`: it lets go of each once stored ended, and then
 * `refusedAsStored` answers for it.
 */
export const heldInMemory = (journal: Journal, id: number) => journal.exchange.withdrawals.has(id);

/**
 * The refusal of a move of a withdrawal memory does not hold: one the store holds ended moves
 * no more, and is refused naming its state as `moveWithdrawal` refuses one held; else not found.
 */
export const refusedAsStored = (mover: Mover, id: number): LaterReply<never> =>
  refusedFromHistory(
    (history) => history.withdrawal(id),
    (stored) => (hiddenFrom(mover, stored) ? undefined : new Refusal('state', stored.state)),
    notFound,
  );

/**
 * Moves the withdrawal `id` to `to` where a row of the table allows it, else refuses naming
 * its state: how its owner cancels it (REST) and how the exchange moves it on (test control).
 * One of another user's, or of another kind, is not found by its owner. Reaching a terminal
 * state releases what it held; reaching `processed` also takes amount and fee from the balance.
 */
export function moveWithdrawal(
  journal: Journal,
  mover: Mover,
  id: number,
  to: WithdrawalState,
  now: number,
): Withdrawal {
  const withdrawal = journal.exchange.withdrawals.get(id);
  if (!withdrawal || hiddenFrom(mover, withdrawal)) throw notFound();
  if (!canMove(withdrawal.state, to)) throw new Refusal('state', withdrawal.state);
  const moved = journal.touch('withdrawal', withdrawal);
  moved.state = to;
  moved.updatedAt = now;
  if (!hasFlag('withdrawal', to, 'terminal')) return moved;
  adjustReserved(journal, withdrawal.userId, withdrawal.currency, heldBy(withdrawal).neg());
  if (to === 'processed') {
    debit(journal, withdrawal, now);
    if (withdrawal.kind === 'crypto') moved.transactionHash = transactionHash(withdrawal);
  }
  return moved;
}

/**
 * Posts amount and fee of a processed withdrawal to the ledger, out of its owner's balance:
 * the amount leaves the exchange, the fee is paid to the house as a trade's fee is.
 */
function debit(journal: Journal, withdrawal: Withdrawal, now: number): void {
  const { currency } = withdrawal;
  const source = { type: 'Withdrawal' as const, id: withdrawal.id };
  const post = (userId: number, amount: D, sourceAction: 'withdrawal' | 'withdrawal_fee') =>
    postEntry(journal, { userId, currency, amount, sourceAction, source, now });
  post(withdrawal.userId, withdrawal.amount.neg(), 'withdrawal');
  post(withdrawal.userId, withdrawal.fee.neg(), 'withdrawal_fee');
  post(houseUserId, withdrawal.fee, 'withdrawal_fee');
}

/** A made-up hash that names the withdrawal: the sandbox sends nothing on any chain. */
const transactionHash = (withdrawal: Withdrawal) =>
  `sandbox${withdrawal.id.toString(16).padStart(57, '0')}`;
