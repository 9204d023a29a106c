import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AttemptHeaders } from './attempt-headers.js';

const names = fc.constantFrom(
  'Content-Type',
  'content-type',
  'X-Service-Auth',
  'Authorization',
  'x-a',
);
// Headers trims values and refuses control characters; these are values it keeps as they are.
const values = fc.stringMatching(/^[!-~]([ -~]{0,20}[!-~])?$/);
const operation = fc.oneof(
  fc.tuple(fc.constant('set' as const), names, values),
  fc.tuple(fc.constant('append' as const), names, values),
  fc.tuple(fc.constant('delete' as const), names, fc.constant('')),
);

describe('AttemptHeaders', () => {
  it('answers get and has as Headers does after any sequence of set, append and delete', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 12 }), (operations) => {
        const ours = new AttemptHeaders();
        const theirs = new Headers();
        for (const [kind, name, value] of operations) {
          if (kind === 'delete') {
            ours.delete(name);
            theirs.delete(name);
          } else {
            ours[kind](name, value);
            theirs[kind](name, value);
          }
        }
        for (const name of ['content-type', 'X-SERVICE-AUTH', 'authorization', 'x-a', 'x-b']) {
          expect(ours.get(name)).toBe(theirs.get(name));
          expect(ours.has(name)).toBe(theirs.has(name));
        }
        const listed: [string, string][] = [];
        ours.forEach((value, name) => {
          listed.push([name, value]);
        });
        expect(listed).toEqual([...theirs]);
        expect(ours.toRecord()).toEqual(Object.fromEntries(theirs));
        expect([...ours]).toEqual([...theirs]);
        expect([...ours.keys()]).toEqual([...theirs.keys()]);
        expect([...ours.values()]).toEqual([...theirs.values()]);
        expect([...new Headers([...ours])]).toEqual([...theirs]);
      }),
      { seed: 15, numRuns: 500 },
    );
  });

  it('starts from a record, a list of pairs or a Headers', () => {
    const expected = { 'content-type': 'application/json', 'x-a': '1, 2' };
    expect(
      new AttemptHeaders({ 'Content-Type': 'application/json', 'x-a': '1, 2' }).toRecord(),
    ).toEqual(expected);
    expect(
      new AttemptHeaders([
        ['Content-Type', 'application/json'],
        ['x-a', '1'],
        ['X-A', '2'],
      ]).toRecord(),
    ).toEqual(expected);
    expect(new AttemptHeaders(new Headers(expected)).toRecord()).toEqual(expected);
  });

  it.each([
    ['bad name', 'a b', 'x'],
    ['empty name', '', 'x'],
    ['line break in the value', 'x-a', 'one\r\nx-injected: two'],
    ['NUL in the value', 'x-a', 'one\0'],
  ])('refuses a %s with a TypeError, as Headers does', (_, name, value) => {
    expect(() => new Headers().set(name, value)).toThrow(TypeError);
    expect(() => new AttemptHeaders().set(name, value)).toThrow(TypeError);
    expect(() => new AttemptHeaders().append(name, value)).toThrow(TypeError);
    expect(() => new AttemptHeaders({ [name]: value })).toThrow(TypeError);
  });

  it('refuses any other control character in a value, as node:http would once under way', () => {
    for (const value of ['a\x01b', 'a\x7f', 'a\x1b[31m']) {
      expect(() => new AttemptHeaders().set('x-a', value)).toThrow(/control character/);
    }
    // A tab, and bytes past ASCII as latin1 text, are values.
    expect(new AttemptHeaders({ 'x-a': 'a\tb\xe9' }).get('x-a')).toBe('a\tb\xe9');
  });
});
