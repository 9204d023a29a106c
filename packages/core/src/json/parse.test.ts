import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson } from './parse.js';

describe('parseJson', () => {
  it('keeps every digit of a number a double cannot hold', () => {
    expect(parseJson('{"price": 123456789012345678901.123456789, "q": 1.5}')).toEqual({
      price: '123456789012345678901.123456789',
      q: 1.5,
    });
  });

  it('leaves strings alone, even when they hold long digit runs or escaped quotes', () => {
    const text =
      '{"address": "12345678901234567890", "note": "say \\"1234567890123456789\\"", "n": 12345678901234567890}';
    expect(parseJson(text)).toEqual({
      address: '12345678901234567890',
      note: 'say "1234567890123456789"',
      n: '12345678901234567890',
    });
  });

  it('reads numbers a double holds exactly as numbers', () => {
    expect(parseJson('[0.000001, 1716000000123, -5000.5, 1e21, 100000000000000000000]')).toEqual([
      0.000001, 1716000000123, -5000.5, 1e21, 1e20,
    ]);
  });

  it('agrees with JSON.parse on any JSON without long numbers', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const parsed = parseJson(text);
        const expected = JSON.parse(text);
        // Long numbers are the one place the two differ, and then exactly by digits kept.
        if (JSON.stringify(parsed) !== JSON.stringify(expected)) {
          expect(text).toMatch(/\d{16}|[\d.]{17}/);
        } else {
          expect(parsed).toEqual(expected);
        }
      }),
    );
  });

  it('keeps every digit of a long number wherever it stands and however it is spaced', () => {
    const space = fc.constantFrom('', ' ', '\n', '\t ');
    fc.assert(
      fc.property(
        fc.stringMatching(/^-?[1-9]\d{14,29}[1-9](\.\d{0,7}[1-9])?$/),
        fc.constantFrom('bare', 'value', 'second value', 'item', 'second item'),
        space,
        (number, place, gap) => {
          const text = {
            bare: `${gap}${number}${gap}`,
            value: `{"a":${gap}${number}}`,
            'second value': `{"a":"1234567890123456789",${gap}"b":${gap}${number}}`,
            item: `[${gap}${number}]`,
            'second item': `[1,${gap}${number}]`,
          }[place];
          expect(JSON.stringify(parseJson(text))).toContain(`"${number}"`);
        },
      ),
    );
  });

  it('throws SyntaxError on malformed JSON as JSON.parse does', () => {
    expect(() => parseJson('{"a": 1234567890123456789')).toThrow(SyntaxError);
    expect(() => parseJson('not json')).toThrow(SyntaxError);
  });
});
