import type { Decimal } from 'decimal.js';

/** What places an order in its side of the book: its side, its price, and its age. */
export interface Ranked {
  readonly side: 'buy' | 'sell';
  readonly price: Decimal;
  readonly sequence: number;
}

/** Whether `a` comes before `b` in its side of the book: better price, then older. */
function ahead(a: Ranked, b: Ranked): boolean {
  const byPrice = a.price.cmp(b.price);
  if (byPrice !== 0) return a.side === 'buy' ? byPrice > 0 : byPrice < 0;
  return a.sequence < b.sequence;
}

const byPlace = (a: Ranked, b: Ranked) => (ahead(a, b) ? -1 : ahead(b, a) ? 1 : 0);

/**
 * One side of a product's book: its resting orders, kept worst first so that the best is last.
 * The orders a call takes from or adds at the top of the book, an order that crosses it
 * included, then move nothing behind them, however deep the book.
 */
export class BookSide<Order extends Ranked> {
  readonly #orders: Order[] = [];

  get size(): number {
    return this.#orders.length;
  }

  /** The best order, or the best but `except` (an order being matched against the book). */
  best(except?: Order): Order | undefined {
    const orders = this.#orders;
    const last = orders[orders.length - 1];
    return last !== undefined && last === except ? orders[orders.length - 2] : last;
  }

  /** The resting orders, best first. */
  *bestFirst(): Generator<Order> {
    for (let n = this.#orders.length - 1; n >= 0; n--) yield this.#orders[n] as Order;
  }

  /** Where `order` belongs: after every order it is ahead of, before the rest. */
  #place(order: Order): number {
    let low = 0;
    let high = this.#orders.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ahead(order, this.#orders[middle] as Order)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  insert(order: Order): void {
    this.#orders.splice(this.#place(order), 0, order);
  }

  /** Inserts many orders at once: one sort and one merge, where `insert` moves the tail each time. */
  insertAll(orders: readonly Order[]): void {
    const added = [...orders].sort(byPlace).reverse();
    const merged: Order[] = [];
    let n = 0;
    for (const order of this.#orders) {
      while (n < added.length && ahead(order, added[n] as Order)) merged.push(added[n++] as Order);
      merged.push(order);
    }
    while (n < added.length) merged.push(added[n++] as Order);
    this.#orders.length = 0;
    for (const order of merged) this.#orders.push(order);
  }

  /** Takes many orders out at once: one pass over the side, where `remove` moves the rest each time. */
  removeAll(orders: ReadonlySet<Order>): void {
    let kept = 0;
    for (const order of this.#orders) if (!orders.has(order)) this.#orders[kept++] = order;
    this.#orders.length = kept;
  }

  remove(order: Order): void {
    // Found where its price and age place it; an order repriced before it is moved is not
    // there any more, and is looked for among them all.
    const placed = this.#place(order);
    const at = this.#orders[placed] === order ? placed : this.#orders.lastIndexOf(order);
    if (at !== -1) this.#orders.splice(at, 1);
  }
}
