import { chargeDueInterest } from '../exchange/borrowing.js';
import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import { refused } from './control-answers.js';
import type { ControlCall } from './control-route.js';

const maxAdvanceSeconds = 10 * 365 * 24 * 3600;

/**
 * `POST /test/clock` with `{"advance_seconds": 30}` moves the sandbox's clock forward: OAuth
 * requests, quotes, `--settle-after` and the interest of loans all follow it, and the store
 * keeps how far, for the next start.
 */
export async function advanceClock({ sequencer, clock, body }: ControlCall): Promise<Serialized> {
  const seconds = body.advance_seconds;
  if (
    typeof seconds !== 'number' ||
    !Number.isInteger(seconds) ||
    seconds < 0 ||
    seconds > maxAdvanceSeconds
  ) {
    return refused('advance_seconds', `must_be_an_integer_from_0_to_${maxAdvanceSeconds}`);
  }
  // The time this call set, read as it is decided: by the time it is stored and answered, a
  // later call may have moved memory's clock on in a batch not stored yet.
  const now = await sequencer.run((journal) => {
    // Kept in the store with the interest it makes due, in one batch.
    const held = journal.exchange.clockOffset;
    const offsetMs = (held?.offsetMs ?? 0) + seconds * 1000;
    if (held) journal.touch('clockOffset', held).offsetMs = offsetMs;
    else journal.add('clockOffset', { id: 1, offsetMs });
    // Interest is charged by the sandbox's clock: the days it just skipped are owed now.
    const moved = clock.now();
    chargeDueInterest(journal, moved);
    return moved;
  });
  return uncachedJson(200, { now: Math.floor(now / 1000) });
}
