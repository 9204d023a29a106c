import type { Decimal } from 'decimal.js';
import { HeadList } from './lists.js';
import {
  folded,
  kept,
  madeBefore,
  type SecondOfFills,
  SecondsOfADay,
  secondOf,
  secondsInADay,
  type TradedFill,
} from './seconds-of-a-day.js';

/** The figures of the fills of the last 24 hours, and the newest fill, however old. */
export interface DayOfTrading {
  low: Decimal | undefined;
  high: Decimal | undefined;
  volume: Decimal | undefined;
  /** What the volume traded for: the sum of each fill's price times its quantity. */
  value: Decimal | undefined;
  first: TradedFill | undefined;
  last: TradedFill | undefined;
}

const later = (a: TradedFill | undefined, b: TradedFill | undefined) =>
  !a || (b && madeBefore(a, b)) ? b : a;

/**
 * What the rules and the market figures need of one product's fills, without its history:
 * how many it has, the newest, and the last day's figures, held per second so that neither
 * memory nor a read of the figures grows with the fills of a day. A fill stays apart until it
 * is stored, so that a refused call's can be taken back, and is then folded into its second.
 * Fills stay in the store; this is loaded from it at start (`store/exchange-load.ts`) and kept
 * in step as fills are made, stored and undone.
 */
export class TradedProduct {
  readonly #seconds = new SecondsOfADay();
  /** The newest fill stored, however old: the last traded price once the day holds none. */
  #lastStored: TradedFill | undefined;
  /** The fills not known to be stored yet, oldest first. */
  readonly #unstored = new HeadList<TradedFill>();

  /** @param count How many fills the product has, stored or not: what a mark price waits on. */
  constructor(public count = 0) {}

  /** The newest fill, whose price is the last traded one. */
  get last(): TradedFill | undefined {
    return later(this.#lastStored, this.#unstored.newest);
  }

  add(fill: TradedFill): void {
    this.count++;
    this.#unstored.push(fill);
    this.#forgetOlderThanADayBefore(secondOf(fill.createdAt));
  }

  /** Takes back a fill not yet stored, made by a call that was then refused. */
  drop(fill: TradedFill): void {
    this.count--;
    this.#unstored.remove(fill);
  }

  /** Folds a fill the store now holds into its second: it can no longer be taken back. */
  stored(fill: TradedFill): void {
    if (!this.#unstored.remove(fill)) return;
    this.#seconds.fold(fill);
    this.#lastStored = later(this.#lastStored, kept(fill));
  }

  /** Adds a second of stored fills after those held, as a start reads them from the store. */
  addSecond(second: SecondOfFills): void {
    this.#seconds.add(second);
    this.#lastStored = later(this.#lastStored, second.last);
  }

  /** The figures of the fills made in the second of `now` and the 86,399 before it. */
  lastDay(now: number): DayOfTrading {
    const from = secondOf(now) - secondsInADay + 1;
    let day = this.#seconds.since(from);
    for (const fill of this.#unstored) {
      if (secondOf(fill.createdAt) >= from) day = folded(day, fill);
    }
    const { low, high, volume, value, first } = day ?? {};
    return { low, high, volume, value, first, last: this.last };
  }

  /** What memory holds of the product's fills: its seconds, and the fills not stored yet. */
  held(): { seconds: SecondOfFills[]; unstored: readonly TradedFill[] } {
    return { seconds: this.#seconds.held(), unstored: this.#unstored.toArray() };
  }

  /**
   * Lets go of what no read asks for again, times only growing: the seconds over a day before
   * `second`, the newest fill's, and the unstored fills as old but the newest of them, which
   * is the last traded one if the newer are taken back.
   */
  #forgetOlderThanADayBefore(second: number): void {
    const from = second - secondsInADay + 1;
    this.#seconds.forgetBefore(from);
    let old = 0;
    while (secondOf(this.#unstored.at(old)?.createdAt ?? from * 1000) < from) old++;
    if (old > 1) this.#unstored.dropOldest(old - 1);
  }
}
