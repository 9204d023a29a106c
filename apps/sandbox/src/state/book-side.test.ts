import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BookSide } from './book-side.js';
import type { Writable } from './journal.js';
import { D, type Order } from './records.js';

const order = (side: 'buy' | 'sell', price: number, sequence: number) =>
  ({ id: sequence, side, price: new D(price), sequence }) as Order;

/** Orders of one side with distinct sequences, split between those resting and those added. */
const sideAndOrders = fc
  .tuple(
    fc.constantFrom('buy' as const, 'sell' as const),
    fc.array(fc.tuple(fc.integer({ min: 1, max: 20 }), fc.boolean()), { maxLength: 60 }),
  )
  .map(([side, entries]) => ({
    side,
    resting: entries.filter(([, first]) => first).map(([price], n) => order(side, price, n * 2)),
    added: entries.filter(([, first]) => !first).map(([price], n) => order(side, price, n * 2 + 1)),
  }));

describe('BookSide.insertAll', () => {
  it('places orders where inserting them one by one would', () => {
    fc.assert(
      fc.property(sideAndOrders, ({ resting, added }) => {
        const oneByOne = new BookSide();
        const atOnce = new BookSide();
        for (const each of resting) {
          oneByOne.insert(each);
          atOnce.insert(each);
        }
        for (const each of added) oneByOne.insert(each);
        atOnce.insertAll(added);
        expect([...atOnce.bestFirst()]).toEqual([...oneByOne.bestFirst()]);
      }),
      { seed: 27, numRuns: 300 },
    );
  });

  it('takes many orders out at once as it takes them out one by one', () => {
    fc.assert(
      fc.property(
        sideAndOrders,
        fc.array(fc.nat(), { maxLength: 40 }),
        ({ resting, added }, picks) => {
          const oneByOne = new BookSide();
          const atOnce = new BookSide();
          const all = [...resting, ...added];
          oneByOne.insertAll(all);
          atOnce.insertAll(all);
          // Repeats included: an order named twice is taken out once.
          const taken = picks.flatMap((pick) =>
            all.length > 0 ? [all[pick % all.length] as Order] : [],
          );
          for (const each of taken) oneByOne.remove(each);
          atOnce.removeAll(new Set(taken));
          expect([...atOnce.bestFirst()]).toEqual([...oneByOne.bestFirst()]);
        },
      ),
      { seed: 28, numRuns: 300 },
    );
  });

  it('takes a book of a million orders without spreading them as arguments', () => {
    const side = new BookSide();
    side.insertAll(Array.from({ length: 1_000_000 }, (_, n) => order('buy', n % 5000, n)));
    expect(side.size).toBe(1_000_000);
    expect(side.best()?.price.toNumber()).toBe(4999);
  });
});

/** What a side must give back: every order it holds, by price-time priority. */
const priority = (side: 'buy' | 'sell', orders: Order[]) =>
  [...orders].sort((a, b) => {
    const byPrice = a.price.cmp(b.price);
    if (byPrice !== 0) return side === 'buy' ? -byPrice : byPrice;
    return a.sequence - b.sequence;
  });

describe('BookSide', () => {
  it('gives back its orders best first, whatever was inserted, repriced or removed', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), price: fc.integer({ min: 1, max: 8 }) }),
      fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
      // As an edit does: the price changes first, then the order is moved.
      fc.record({
        kind: fc.constant('reprice' as const),
        pick: fc.nat(),
        price: fc.integer({ min: 1, max: 8 }),
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('buy' as const, 'sell' as const),
        fc.array(step, { maxLength: 80 }),
        (sideName, steps) => {
          const side = new BookSide();
          let held: Order[] = [];
          let sequence = 0;
          for (const next of steps) {
            if (next.kind === 'insert') {
              const added = order(sideName, next.price, sequence++);
              side.insert(added);
              held.push(added);
              continue;
            }
            const picked = held[next.pick % Math.max(held.length, 1)];
            if (!picked) continue;
            if (next.kind === 'reprice') {
              const repriced = picked as Writable<Order>;
              repriced.price = new D(next.price);
              repriced.sequence = sequence++;
              side.remove(picked);
              side.insert(picked);
            } else {
              side.remove(picked);
              held = held.filter((each) => each !== picked);
            }
          }
          const expected = priority(sideName, held);
          expect([...side.bestFirst()]).toEqual(expected);
          expect(side.size).toBe(held.length);
          expect(side.best()).toBe(expected[0]);
          expect(side.best(expected[0])).toBe(expected[1]);
        },
      ),
      { seed: 28, numRuns: 500 },
    );
  });

  it('puts an order that crosses a deep book on its top, and takes it off again', () => {
    const side = new BookSide();
    side.insertAll(Array.from({ length: 200_000 }, (_, n) => order('buy', 1 + (n % 5000), n)));
    const crossing = order('buy', 6000, 200_000);
    side.insert(crossing);
    expect(side.best()).toBe(crossing);
    side.remove(crossing);
    expect(side.best()?.price.toNumber()).toBe(5000);
    expect(side.size).toBe(200_000);
  });
});
