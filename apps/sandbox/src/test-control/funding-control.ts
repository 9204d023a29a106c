import { zWithdrawalState } from '@exchange-kit/contract/exchange/schemas';
import { creditDeposit, fundInfoView } from '../exchange/deposits.js';
import { heldInMemory, moveWithdrawal, refusedAsStored } from '../exchange/withdrawal-moves.js';
import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import { refused } from './control-answers.js';
import type { ControlCall } from './control-route.js';

/**
 * The moves of withdrawals and deposits that the exchange makes and the interfaces do not.
 *
 * `POST /test/withdrawals/{withdrawal_id}/state` with `{"state": "processing"}` (or
 * `processed`, `declined`) moves a withdrawal, crypto or fiat, where a row of the withdrawal
 * table allows it; any other move is refused with 422 naming its state.
 */
export async function moveWithdrawalState({
  sequencer,
  clock,
  params,
  body,
}: ControlCall<{ withdrawal_id: number }>): Promise<Serialized> {
  const { state } = body;
  if (state === undefined) return refused('state', 'required');
  // A state no withdrawal has is no move at all, not one the withdrawal's state forbids.
  const to = zWithdrawalState.safeParse(state);
  if (!to.success) return refused('state', 'not_a_withdrawal_state');
  const id = params.withdrawal_id;
  // The state this call set, read as it is decided: a later call may move it on before this
  // one is stored and answered.
  const moved = await sequencer.run((journal) => {
    if (!heldInMemory(journal, id)) return undefined;
    const withdrawal = moveWithdrawal(journal, 'exchange', id, to.data, clock.now());
    return { id: withdrawal.id, state: withdrawal.state };
  });
  if (!moved) {
    // Ended and let go of: the store's copy is refused naming its state.
    const { later } = refusedAsStored('exchange', id);
    return sequencer.read((history, sandbox) => later(history, sandbox.exchange));
  }
  return uncachedJson(200, { withdrawal_id: moved.id, state: moved.state });
}

/**
 * `POST /test/deposits` with `{"user_id": 1001, "currency": "BTC", "amount": "1.5"}` credits
 * a received deposit to the user's balance.
 */
export async function creditReceivedDeposit({
  sequencer,
  clock,
  body,
}: ControlCall): Promise<Serialized> {
  const { user_id: userId, currency, amount } = body;
  if (typeof userId !== 'number' || !Number.isSafeInteger(userId)) {
    return refused('user_id', 'must_be_an_integer');
  }
  if (typeof currency !== 'string') return refused('currency', 'required');
  if (typeof amount !== 'string') return refused('amount', 'must_be_a_decimal_string');
  const deposit = await sequencer.run((journal) =>
    creditDeposit(journal, { userId, currency, amount }, clock.now()),
  );
  return uncachedJson(200, fundInfoView(deposit));
}
