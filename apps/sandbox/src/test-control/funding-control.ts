import { creditDeposit, fundInfoView } from '../exchange/deposits.js';
import { moveWithdrawal } from '../exchange/withdrawal-moves.js';
import { DomainError, NotFound } from '../handling/errors.js';
import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import type { Withdrawal } from '../state/exchange-state.js';
import type { Sequencer } from '../state/sequencer.js';
import { refused } from './control-answers.js';

/**
 * The moves of withdrawals and deposits that the exchange makes and the interfaces do not:
 *
 * - `POST /test/withdrawals/{withdrawal_id}/state` with `{"state": "processing"}` (or
 *   `processed`, `declined`) moves a withdrawal, crypto or fiat, where a row of the withdrawal
 *   table allows it; any other move is refused with 422 naming its state.
 * - `POST /test/deposits` with `{"user_id": 1001, "currency": "BTC", "amount": "1.5"}` credits
 *   a received deposit to the user's balance.
 *
 * Undefined for any other path.
 */
export async function fundingControl(
  sequencer: Sequencer,
  now: () => number,
  pathname: string,
  body: Record<string, unknown>,
): Promise<Serialized | undefined> {
  const withdrawalId = /^\/test\/withdrawals\/([0-9]{1,15})\/state$/.exec(pathname)?.[1];
  if (withdrawalId === undefined && pathname !== '/test/deposits') return undefined;
  try {
    if (withdrawalId !== undefined) {
      const { state } = body;
      if (typeof state !== 'string') return refused('state', 'required');
      const moved = await sequencer.run((journal) =>
        moveWithdrawal(
          journal,
          'exchange',
          Number(withdrawalId),
          state as Withdrawal['state'],
          now(),
        ),
      );
      return uncachedJson(200, { withdrawal_id: moved.id, state: moved.state });
    }
    const { user_id: userId, currency, amount } = body;
    if (typeof userId !== 'number' || !Number.isSafeInteger(userId)) {
      return refused('user_id', 'must_be_an_integer');
    }
    if (typeof currency !== 'string') return refused('currency', 'required');
    if (typeof amount !== 'string') return refused('amount', 'must_be_a_decimal_string');
    const deposit = await sequencer.run((journal) =>
      creditDeposit(journal, { userId, currency, amount }, now()),
    );
    return uncachedJson(200, fundInfoView(deposit));
  } catch (error) {
    if (error instanceof NotFound) return uncachedJson(404, { message: error.message });
    if (error instanceof DomainError) return uncachedJson(422, { errors: error.errors ?? {} });
    throw error;
  }
}
