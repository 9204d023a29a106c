import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReachIndex } from './reach-index.js';

// Few prices and ids, so that ties, moves of one id and repeated deletes come up often.
const price = fc.integer({ min: 1, max: 12 });
const bound = fc.option(price, { nil: null });
const step = fc.oneof(
  fc.record({ set: fc.nat(15), fall: bound, rise: bound }),
  fc.record({ delete: fc.nat(15) }),
  fc.record({ ask: price }),
);

describe('ReachIndex', () => {
  it('answers each price with exactly the ids whose bounds it reaches', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const index = new ReachIndex();
        const model = new Map<number, { fall: number | null; rise: number | null }>();
        for (const each of steps) {
          if ('set' in each) {
            index.set(each.set, each.fall, each.rise);
            model.set(each.set, { fall: each.fall, rise: each.rise });
          } else if ('delete' in each) {
            index.delete(each.delete);
            model.delete(each.delete);
          } else {
            const reached = [...model]
              .filter(([, { fall, rise }]) => (fall ?? -1) >= each.ask || (rise ?? 99) <= each.ask)
              .map(([id]) => id);
            expect(index.reachedBy(each.ask).sort((a, b) => a - b)).toEqual(
              reached.sort((a, b) => a - b),
            );
          }
          expect(index.size).toBe(model.size);
        }
      }),
      { seed: 29, numRuns: 500 },
    );
  });

  it('holds an id reached from any price, and one reached by none', () => {
    const index = new ReachIndex();
    index.set(1, Number.POSITIVE_INFINITY, null);
    index.set(2, null, null);
    expect(index.reachedBy(1e300)).toEqual([1]);
    expect(index.size).toBe(2);
  });
});
