/** The value under `key`, put there by `create` when there is none yet. */
export function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

/**
 * Lists of rows by a key, each in the order its rows were added. A row dropped is taken out
 * with the others dropped from its list in one pass, at the next read of the list or once
 * half of it is dropped: a stored batch lets go of its rows one at a time, oldest first, and
 * taking each out of an array at once moved the rest down every time, so that forgetting the
 * hundred thousand fills of one order took minutes.
 */
export class KeyedLists<Key, Row> {
  readonly #lists = new Map<Key, Row[]>();
  readonly #dropped = new Map<Key, Set<Row>>();

  add(key: Key, row: Row): void {
    // Settled first only for a row dropped and not yet taken out, so that the row added is
    // listed anew: settling at every add went over a user's whole list for each order placed.
    const list = this.#dropped.get(key)?.has(row) ? this.#settled(key) : this.#lists.get(key);
    if (list) list.push(row);
    else this.#lists.set(key, [row]);
  }

  /** Takes `row` out of the list of `key`, if it is there: only that row, never an equal one. */
  drop(key: Key, row: Row): void {
    const list = this.#lists.get(key);
    if (!list) return;
    const dropped = getOrCreate(this.#dropped, key, () => new Set<Row>());
    dropped.add(row);
    if (dropped.size * 2 >= list.length) this.#settled(key);
  }

  of(key: Key): readonly Row[] {
    return this.#settled(key) ?? [];
  }

  /** Forgets the whole list of `key`. */
  delete(key: Key): void {
    this.#lists.delete(key);
    this.#dropped.delete(key);
  }

  /** Every row of every list. */
  all(): Row[] {
    return [...this.#lists.keys()].flatMap((key) => this.of(key));
  }

  #settled(key: Key): Row[] | undefined {
    const list = this.#lists.get(key);
    const dropped = this.#dropped.get(key);
    if (!list || !dropped) return list;
    this.#dropped.delete(key);
    let kept = 0;
    // Each dropped row leaves the set as it is met: a row listed twice is dropped once.
    for (const row of list) if (!dropped.delete(row)) list[kept++] = row;
    list.length = kept;
    if (kept > 0) return list;
    this.#lists.delete(key);
    return undefined;
  }
}

/**
 * Records listed by their user, each list in the order its records were added: what one
 * user's calls read, instead of every record memory holds.
 */
export class ByUser<Row extends { readonly userId: number }> {
  readonly #lists = new KeyedLists<number, Row>();

  add(row: Row): void {
    this.#lists.add(row.userId, row);
  }

  drop(row: Row): void {
    this.#lists.drop(row.userId, row);
  }

  of(userId: number): readonly Row[] {
    return this.#lists.of(userId);
  }
}

/**
 * A list, oldest first, whose oldest items are let go of by moving a head past them; the list
 * is moved down once half of it is let go of, so each item is moved a bounded number of times.
 * Taking the first item out of an array moves all the others each time.
 */
export class HeadList<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  /** The item `index` places from the oldest held, or from the newest when negative. */
  at(index: number): T | undefined {
    const at = index < 0 ? this.#items.length + index : this.#head + index;
    return at >= this.#head ? this.#items[at] : undefined;
  }

  get newest(): T | undefined {
    return this.at(-1);
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** Takes the newest off, if there is one. */
  popNewest(): void {
    if (this.length > 0) this.#items.pop();
  }

  /** Lets go of the `count` oldest items. */
  dropOldest(count: number): void {
    this.#head = Math.min(this.#head + count, this.#items.length);
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Lets go of the oldest items as long as `old` holds for them. */
  dropOldestWhile(old: (item: T) => boolean): void {
    let count = 0;
    while (count < this.length && old(this.at(count) as T)) count++;
    this.dropOldest(count);
  }

  /**
   * Takes `item` out, if it is held, and says whether it was: at once when it is the oldest,
   * as stored items are let go of; otherwise by a search from the newest, where a refused
   * call's items are.
   */
  remove(item: T): boolean {
    if (this.length > 0 && this.#items[this.#head] === item) {
      this.dropOldest(1);
      return true;
    }
    const at = this.#items.lastIndexOf(item);
    if (at < this.#head) return false;
    this.#items.splice(at, 1);
    return true;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let at = this.#head; at < this.#items.length; at++) yield this.#items[at] as T;
  }

  toArray(): T[] {
    return this.#items.slice(this.#head);
  }
}
