/** The value under `key`, put there by `create` when there is none yet. */
export function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

/** Takes `item` out of `list`, if it is there: only that one, never another in its place. */
export function removeFrom<T>(list: T[] | undefined, item: T): void {
  const at = list?.indexOf(item) ?? -1;
  if (at !== -1) list?.splice(at, 1);
}

/**
 * Records listed by their user, each list in the order its records were added: what one
 * user's calls read, instead of every record memory holds.
 */
export class ByUser<Row extends { readonly userId: number }> {
  readonly #lists = new Map<number, Row[]>();

  add(row: Row): void {
    getOrCreate(this.#lists, row.userId, (): Row[] => []).push(row);
  }

  drop(row: Row): void {
    removeFrom(this.#lists.get(row.userId), row);
  }

  of(userId: number): readonly Row[] {
    return this.#lists.get(userId) ?? [];
  }
}
