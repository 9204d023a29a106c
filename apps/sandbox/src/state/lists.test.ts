import { describe, expect, it } from 'vitest';
import { ByUser, HeadList, KeyedLists } from './lists.js';

describe('ByUser', () => {
  it("lists each user's records in the order added, and drops only the one named", () => {
    const listed = new ByUser<{ userId: number; name: string }>();
    const [first, second, theirs, same] = [
      { userId: 1, name: 'first' },
      { userId: 1, name: 'second' },
      { userId: 2, name: 'theirs' },
      // Equal to the first in every field, yet another record.
      { userId: 1, name: 'first' },
    ];
    for (const row of [first, second, theirs, same]) listed.add(row);
    expect(listed.of(1)).toEqual([first, second, same]);
    listed.drop(same);
    expect(listed.of(1)[0]).toBe(first);
    expect(listed.of(1)).toHaveLength(2);
    listed.drop({ userId: 2, name: 'theirs' });
    expect(listed.of(2)).toEqual([theirs]);
    expect(listed.of(3)).toEqual([]);
  });
});

describe('KeyedLists', () => {
  it('drops the very rows named, many at once, and keeps the rest in the order added', () => {
    const lists = new KeyedLists<string, { n: number }>();
    const rows = Array.from({ length: 10_000 }, (_, n) => ({ n }));
    for (const row of rows) lists.add(row.n % 2 ? 'odd' : 'even', row);
    // Every even row but the last few, oldest first, as a stored batch lets go of them; an
    // equal row that is not listed takes none out; an odd row named under 'even' stays.
    for (const row of rows.slice(0, 9_990)) if (row.n % 2 === 0) lists.drop('even', row);
    lists.drop('even', { n: 9_990 });
    lists.drop('even', rows[1] as { n: number });
    expect(lists.of('even').map((row) => row.n)).toEqual([9_990, 9_992, 9_994, 9_996, 9_998]);
    expect(lists.of('odd')).toHaveLength(5_000);
    expect(lists.of('odd')[0]).toBe(rows[1]);
  });

  it('takes a row dropped and added again out once, where it was, and lists it anew', () => {
    const lists = new KeyedLists<number, { n: number }>();
    const [a, b] = [{ n: 1 }, { n: 2 }];
    lists.add(1, a);
    lists.add(1, b);
    lists.drop(1, a);
    lists.add(1, a);
    expect(lists.of(1)).toEqual([b, a]);
    lists.drop(1, a);
    lists.drop(1, b);
    expect(lists.of(1)).toEqual([]);
    expect(lists.all()).toEqual([]);
  });

  it('adds to a list with rows dropped without going over it, and takes them out at the read', () => {
    const lists = new KeyedLists<number, { n: number }>();
    const rows = Array.from({ length: 1_000 }, (_, n) => ({ n }));
    for (const row of rows) lists.add(1, row);
    const list = lists.of(1);
    lists.drop(1, rows[0] as { n: number });
    lists.add(1, { n: 1_000 });
    // The dropped row is still in the list itself: the add moved nothing.
    expect(list[0]).toBe(rows[0]);
    expect(list).toHaveLength(1_001);
    expect(lists.of(1).map((row) => row.n)).toEqual(Array.from({ length: 1_000 }, (_, n) => n + 1));
  });

  it('lets go of what is dropped without a read of its list, once half of it is dropped', () => {
    const lists = new KeyedLists<number, object>();
    const kept = {};
    lists.add(1, kept);
    // The list itself, as the rows dropped are taken out of it in place.
    const list = lists.of(1);
    for (let n = 0; n < 1_000; n++) {
      const row = {};
      lists.add(1, row);
      lists.drop(1, row);
    }
    expect(list).toEqual([kept]);
  });
});

describe('HeadList', () => {
  it('lets go of its oldest items, takes out any one, and reads from its oldest held', () => {
    const list = new HeadList<number>();
    for (let n = 0; n < 5_000; n++) list.push(n);
    list.dropOldestWhile((n) => n < 3_000);
    expect([list.length, list.at(0), list.at(-1), list.newest]).toEqual([
      2_000, 3_000, 4_999, 4_999,
    ]);
    expect(list.remove(3_000)).toBe(true);
    expect(list.remove(4_000)).toBe(true);
    expect(list.remove(4_999)).toBe(true);
    // Let go of already: not held, whatever the list kept behind its head.
    expect(list.remove(2_999)).toBe(false);
    expect(list.at(0)).toBe(3_001);
    expect(list.at(-1)).toBe(4_998);
    expect(list.at(-list.length - 1)).toBeUndefined();
    expect(list.toArray()).toEqual([...list]);
    expect(list.toArray()).toHaveLength(1_997);
    expect(list.toArray().includes(4_000)).toBe(false);
    list.dropOldest(10_000);
    list.popNewest();
    expect([list.length, list.newest, list.toArray()]).toEqual([0, undefined, []]);
  });
});
