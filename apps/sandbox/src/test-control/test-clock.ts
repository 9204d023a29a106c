import type { Sequencer } from '../state/sequencer.js';

/**
 * The sandbox's clock: the wall clock, moved forward by what `/test/clock` added. The store
 * keeps what was added (the `clockOffset` record), so a restart goes on from where the clock
 * stood rather than dating new records before old ones.
 */
export class TestClock {
  constructor(
    private readonly base: () => number,
    private readonly offset: () => number,
  ) {}

  readonly now = () => this.base() + this.offset();
}

/** What `/test/clock` has added to `sequencer`'s clock, as its state holds it. */
export const clockOffsetOf = (sequencer: Pick<Sequencer, 'state'>) => () =>
  sequencer.state.exchange.clockOffset?.offsetMs ?? 0;
