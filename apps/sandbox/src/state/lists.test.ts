import { describe, expect, it } from 'vitest';
import { ByUser } from './lists.js';

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
