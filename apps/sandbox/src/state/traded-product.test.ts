import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { D } from './records.js';
import { secondsInADay, type TradedFill } from './seconds-of-a-day.js';
import { TradedProduct } from './traded-product.js';

const start = Date.UTC(2026, 0, 1);

/** The figures as the fills say them: those made in the second of `now` and a day before. */
function lastDayOf(fills: readonly TradedFill[], now: number) {
  const from = Math.floor(now / 1000) - secondsInADay + 1;
  const day = fills.filter((fill) => Math.floor(fill.createdAt / 1000) >= from);
  const byTime = (a: TradedFill, b: TradedFill) => a.createdAt - b.createdAt || a.id - b.id;
  const sorted = day.map((fill) => fill.price).sort((a, b) => a.comparedTo(b));
  return {
    low: sorted[0]?.toFixed(),
    high: sorted.at(-1)?.toFixed(),
    volume:
      day.length > 0 ? day.reduce((sum, f) => sum.plus(f.quantity), new D(0)).toFixed() : undefined,
    value:
      day.length > 0
        ? day.reduce((sum, f) => sum.plus(f.price.times(f.quantity)), new D(0)).toFixed()
        : undefined,
    first: [...day].sort(byTime)[0]?.id,
    last: [...fills].sort(byTime).at(-1)?.id,
  };
}

const figures = (traded: TradedProduct, now: number) => {
  const day = traded.lastDay(now);
  return {
    low: day.low?.toFixed(),
    high: day.high?.toFixed(),
    volume: day.volume?.toFixed(),
    value: day.value?.toFixed(),
    first: day.first?.id,
    last: day.last?.id,
  };
};

/** What happens to the product: a fill made some milliseconds after the last, stored or undone. */
const steps = fc.array(
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('fill' as const),
        // Mostly within a second, sometimes hours apart: the day's edge is crossed.
        after: fc.oneof(fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 0, max: 30_000_000 })),
        price: fc.integer({ min: 1, max: 50 }),
        quantity: fc.integer({ min: 1, max: 9 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('store' as const) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('undo' as const) }) },
  ),
  { maxLength: 120 },
);

describe('TradedProduct', () => {
  it('gives the figures the fills of the last day give, as fills are made, stored and undone', () => {
    fc.assert(
      fc.property(steps, fc.integer({ min: 0, max: 100_000_000 }), (run, lateBy) => {
        const traded = new TradedProduct();
        const made: TradedFill[] = [];
        const unstored: TradedFill[] = [];
        let now = start;
        let id = 0;
        for (const step of run) {
          if (step.kind === 'fill') {
            now += step.after;
            id += 1;
            const fill = {
              id,
              createdAt: now,
              price: new D(step.price),
              quantity: new D(step.quantity).div(100),
            };
            traded.add(fill);
            made.push(fill);
            unstored.push(fill);
          } else if (step.kind === 'store') {
            // The store keeps fills in the order they were made.
            const fill = unstored.shift();
            if (fill) traded.stored(fill);
          } else {
            // Only a fill not stored yet is taken back: the newest of them.
            const fill = unstored.pop();
            if (!fill) continue;
            traded.drop(fill);
            made.splice(made.indexOf(fill), 1);
          }
          expect(traded.count).toBe(made.length);
          // Read at any time from the newest fill on, the figures are the fills'.
          for (const at of [now, now + lateBy]) {
            expect(figures(traded, at)).toEqual(lastDayOf(made, at));
          }
        }
      }),
      { seed: 25, numRuns: 300 },
    );
  });

  it('holds one entry per second of a busy day, and reads its figures without spreading them', () => {
    const traded = new TradedProduct();
    // 200,000 fills over the last 100 seconds: 2,000 a second.
    for (let n = 0; n < 200_000; n++) {
      const fill = {
        id: n + 1,
        createdAt: start + n / 2,
        price: new D(1000 + (n % 997)),
        quantity: new D('0.01'),
      };
      traded.add(fill);
      traded.stored(fill);
    }
    expect(traded.held().seconds.length).toBe(100);
    expect(traded.held().unstored).toEqual([]);
    const day = traded.lastDay(start + 100_000);
    expect(day.low?.toFixed()).toBe('1000');
    expect(day.high?.toFixed()).toBe('1996');
    expect(day.volume?.toFixed()).toBe('2000');
    expect(day.first?.id).toBe(1);
    expect(day.last?.id).toBe(200_000);
  });

  it('keeps the last traded price when the only fill of the day is taken back', () => {
    const traded = new TradedProduct();
    const old = { id: 1, createdAt: start, price: new D(7), quantity: new D(1) };
    traded.add(old);
    traded.stored(old);
    const refused = {
      id: 2,
      createdAt: start + 2 * secondsInADay * 1000,
      price: new D(9),
      quantity: new D(1),
    };
    traded.add(refused);
    expect(traded.held().seconds).toEqual([]);
    traded.drop(refused);
    expect(traded.last?.price.toFixed()).toBe('7');
    expect(traded.count).toBe(1);
  });

  it('lets go of the seconds over a day older than the newest fill, keeping its price', () => {
    const traded = new TradedProduct();
    const fill = (id: number, createdAt: number) => {
      const made = { id, createdAt, price: new D(id), quantity: new D(1) };
      traded.add(made);
      traded.stored(made);
    };
    fill(1, start);
    fill(2, start + 1000);
    fill(3, start + secondsInADay * 1000);
    // The first fill's second is a day before the third's: out of every window from now on.
    expect(traded.held().seconds.map((second) => second.last.id)).toEqual([2, 3]);
    const muchLater = traded.lastDay(start + 10 * secondsInADay * 1000);
    expect(muchLater).toMatchObject({ low: undefined, volume: undefined, first: undefined });
    expect(muchLater.last?.price.toFixed()).toBe('3');
  });
});
