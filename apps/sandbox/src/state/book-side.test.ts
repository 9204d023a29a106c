import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BookSide, D, type Order } from './exchange-state.js';

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
        expect(atOnce.orders).toEqual(oneByOne.orders);
      }),
      { seed: 27, numRuns: 300 },
    );
  });

  it('takes a book of a million orders without spreading them as arguments', () => {
    const side = new BookSide();
    side.insertAll(Array.from({ length: 1_000_000 }, (_, n) => order('buy', n % 5000, n)));
    expect(side.orders).toHaveLength(1_000_000);
    expect(side.orders[0]?.price.toNumber()).toBe(4999);
  });
});
