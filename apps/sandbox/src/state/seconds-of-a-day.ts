import type { Decimal } from 'decimal.js';
import { HeadList } from './lists.js';

/** What the market figures need of a fill: the state that holds fills imports this, not back. */
export interface TradedFill {
  readonly id: number;
  readonly createdAt: number;
  readonly price: Decimal;
  readonly quantity: Decimal;
}

/**
 * Fills folded into what the market figures take of them: the lowest and highest price, the
 * volume and what it traded for (the sum of price times quantity), and the first and last fill,
 * by time and then by id. `second` is the first second they were made in.
 */
export interface SecondOfFills {
  readonly second: number;
  readonly low: Decimal;
  readonly high: Decimal;
  readonly volume: Decimal;
  readonly value: Decimal;
  readonly first: TradedFill;
  readonly last: TradedFill;
}

/** How many seconds the market figures look back over: a day of them, the current one last. */
export const secondsInADay = 24 * 60 * 60;

export const secondOf = (ms: number) => Math.floor(ms / 1000);

/** Whether `a` was made before `b`: by time, then by id, as the store orders fills. */
export const madeBefore = (a: TradedFill, b: TradedFill) =>
  a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);

/** What is kept of a fill: not the whole record, which holds far more. */
export const kept = ({ id, createdAt, price, quantity }: TradedFill): TradedFill => ({
  id,
  createdAt,
  price,
  quantity,
});

/** `folded` with `fill` folded in: the fill alone, in its second, when there is nothing yet. */
export function folded(into: SecondOfFills | undefined, fill: TradedFill): SecondOfFills {
  if (!into) {
    const { price, quantity } = fill;
    const alone = kept(fill);
    const second = secondOf(fill.createdAt);
    const value = price.times(quantity);
    return { second, low: price, high: price, volume: quantity, value, first: alone, last: alone };
  }
  return {
    second: Math.min(into.second, secondOf(fill.createdAt)),
    low: fill.price.lt(into.low) ? fill.price : into.low,
    high: fill.price.gt(into.high) ? fill.price : into.high,
    volume: into.volume.plus(fill.quantity),
    value: into.value.plus(fill.price.times(fill.quantity)),
    first: madeBefore(fill, into.first) ? kept(fill) : into.first,
    last: madeBefore(into.last, fill) ? kept(fill) : into.last,
  };
}

/** A second held, with the volume and value of every second held up to and including it. */
interface Held extends SecondOfFills {
  readonly volumeThrough: Decimal;
  readonly valueThrough: Decimal;
}

const plain = ({ volumeThrough: _, valueThrough: __, ...second }: Held): SecondOfFills => second;

/** Entries of seconds, oldest first, of which the oldest are let go of. */
class SecondsFrom<Entry extends { readonly second: number }> extends HeadList<Entry> {
  /** The first entry whose second is at least `from`, found by halving. */
  firstFrom(from: number): Entry | undefined {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.at(middle) as Entry).second < from) low = middle + 1;
      else high = middle;
    }
    return this.at(low);
  }

  /** Lets go of the entries of seconds before `from`. */
  forgetBefore(from: number): void {
    this.dropOldestWhile((entry) => entry.second < from);
  }
}

/**
 * A product's stored fills of the last day, one entry per second with any, oldest first, which
 * answers the figures of any last part of it without walking it: the volume from running
 * totals, the lowest and highest price from the seconds whose price no later second beats
 * (each list rises, or falls, from oldest to newest, so its first entry in a range is the
 * range's lowest, or highest). A day of seconds is 86,400 entries: walked, they took 27 ms a
 * read of the figures.
 */
export class SecondsOfADay {
  #seconds = new SecondsFrom<Held>();
  #lows = new SecondsFrom<Held>();
  #highs = new SecondsFrom<Held>();

  /** The newest second held. */
  get newest(): SecondOfFills | undefined {
    return this.#seconds.newest;
  }

  /** Folds a fill into its second: times only grow, so that is the newest second or a new one. */
  fold(fill: TradedFill): void {
    const newest = this.#seconds.newest;
    const second = secondOf(fill.createdAt);
    if (!newest || newest.second < second) {
      this.add(folded(undefined, fill));
    } else if (newest.second === second) {
      this.#seconds.popNewest();
      this.#seconds.push(this.#entered(folded(newest, fill), newest));
    } else {
      // A fill older than the newest second (a clock set back): the rare way round, rebuilt.
      this.#rebuild([...this.held(), folded(undefined, fill)]);
    }
  }

  /** Adds a second after the newest held, as a start reads them from the store. */
  add(second: SecondOfFills): void {
    const newest = this.newest;
    if (newest && newest.second >= second.second) {
      this.#rebuild([...this.held(), second]);
      return;
    }
    this.#seconds.push(this.#entered(second));
  }

  /**
   * Lets go of the seconds before `from`, and of the lows and highs among them: no read asks
   * for them again, times only growing.
   */
  forgetBefore(from: number): void {
    for (const list of [this.#seconds, this.#lows, this.#highs]) list.forgetBefore(from);
  }

  /** The seconds from `from` on folded into one, if there are any. */
  since(from: number): SecondOfFills | undefined {
    const first = this.#seconds.firstFrom(from);
    const last = this.#seconds.newest;
    if (!first || !last) return undefined;
    const low = this.#lows.firstFrom(from) as Held;
    const high = this.#highs.firstFrom(from) as Held;
    return {
      second: first.second,
      low: low.low,
      high: high.high,
      volume: last.volumeThrough.minus(first.volumeThrough).plus(first.volume),
      value: last.valueThrough.minus(first.valueThrough).plus(first.value),
      first: first.first,
      last: last.last,
    };
  }

  /** The seconds held, oldest first. */
  held(): SecondOfFills[] {
    return this.#seconds.toArray().map(plain);
  }

  /**
   * `second` as held, in the place of `replaced` (the newest, taken off already) or after the
   * newest: its running volume, and in the lists of lows and highs in place of the seconds it
   * beats.
   */
  #entered(second: SecondOfFills, replaced?: Held): Held {
    const before = this.#seconds.newest;
    const volumeBefore = replaced
      ? replaced.volumeThrough.minus(replaced.volume)
      : before?.volumeThrough;
    const valueBefore = replaced
      ? replaced.valueThrough.minus(replaced.value)
      : before?.valueThrough;
    const held: Held = {
      ...second,
      volumeThrough: volumeBefore ? volumeBefore.plus(second.volume) : second.volume,
      valueThrough: valueBefore ? valueBefore.plus(second.value) : second.value,
    };
    const lows = this.#lows;
    const highs = this.#highs;
    if (replaced && lows.newest === replaced) lows.popNewest();
    if (replaced && highs.newest === replaced) highs.popNewest();
    while (lows.newest?.low.gte(held.low)) lows.popNewest();
    lows.push(held);
    while (highs.newest?.high.lte(held.high)) highs.popNewest();
    highs.push(held);
    return held;
  }

  #rebuild(seconds: SecondOfFills[]): void {
    const bySecond = new Map<number, SecondOfFills>();
    for (const second of seconds) {
      const same = bySecond.get(second.second);
      bySecond.set(second.second, same ? joined(same, second) : second);
    }
    this.#seconds = new SecondsFrom<Held>();
    this.#lows = new SecondsFrom<Held>();
    this.#highs = new SecondsFrom<Held>();
    for (const second of [...bySecond.values()].sort((a, b) => a.second - b.second)) {
      this.#seconds.push(this.#entered(second));
    }
  }
}

/** Two seconds' figures as one. */
function joined(a: SecondOfFills, b: SecondOfFills): SecondOfFills {
  return {
    second: Math.min(a.second, b.second),
    low: a.low.lt(b.low) ? a.low : b.low,
    high: a.high.gt(b.high) ? a.high : b.high,
    volume: a.volume.plus(b.volume),
    value: a.value.plus(b.value),
    first: madeBefore(a.first, b.first) ? a.first : b.first,
    last: madeBefore(a.last, b.last) ? b.last : a.last,
  };
}
