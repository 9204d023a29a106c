import { OrderedMap } from '@js-sdsl/ordered-map';

interface Bound {
  readonly price: number;
  readonly id: number;
}

// Ids break ties, so two ids at one price are two keys.
const byPrice = (a: Bound, b: Bound) =>
  a.price < b.price ? -1 : a.price > b.price ? 1 : a.id - b.id;

/**
 * Ids by the prices that reach them: each is reached by a price at or under its `fall`
 * bound, or at or over its `rise` bound. A question about one price reads only the ids it
 * reaches, however many others there are, and moving one id's bounds costs a logarithm of
 * their number. The bounds are numbers: whoever sets them rounds them outwards, so that
 * every price that reaches an id exactly reaches its bound too.
 */
export class ReachIndex {
  readonly #falls = new OrderedMap<Bound, undefined>([], byPrice);
  readonly #rises = new OrderedMap<Bound, undefined>([], byPrice);
  readonly #bounds = new Map<number, { fall: Bound | null; rise: Bound | null }>();

  get size(): number {
    return this.#bounds.size;
  }

  /** Sets the bounds of `id`; null where no price reaches it from that side. */
  set(id: number, fall: number | null, rise: number | null): void {
    this.delete(id);
    const bounds = {
      fall: fall === null ? null : { price: fall, id },
      rise: rise === null ? null : { price: rise, id },
    };
    if (bounds.fall) this.#falls.setElement(bounds.fall, undefined);
    if (bounds.rise) this.#rises.setElement(bounds.rise, undefined);
    this.#bounds.set(id, bounds);
  }

  delete(id: number): void {
    const bounds = this.#bounds.get(id);
    if (!bounds) return;
    if (bounds.fall) this.#falls.eraseElementByKey(bounds.fall);
    if (bounds.rise) this.#rises.eraseElementByKey(bounds.rise);
    this.#bounds.delete(id);
  }

  /**
   * The ids that `price` reaches, each once, in no particular order. Walked with the maps' own
   * iterators from where the price stands: the maps' `for...of` walks every entry before it
   * yields the first, whatever the loop leaves unread.
   */
  reachedBy(price: number): number[] {
    const ids = new Set<number>();
    const falls = this.#falls.end();
    for (let at = this.#falls.lowerBound({ price, id: -Infinity }); !at.equals(falls); at.next()) {
      ids.add(at.pointer[0].id);
    }
    const rises = this.#rises.end();
    for (let at = this.#rises.begin(); !at.equals(rises); at.next()) {
      const [bound] = at.pointer;
      if (bound.price > price) break;
      ids.add(bound.id);
    }
    return [...ids];
  }
}
