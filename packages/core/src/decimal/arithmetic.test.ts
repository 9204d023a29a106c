import { describe, expect, it } from 'vitest';
import { InvalidDecimalError } from '../errors.js';
import { decimal, round, sum } from './arithmetic.js';

describe('decimal arithmetic', () => {
  it('adds exactly where doubles do not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sum(0.1, 0.2)).toBe('0.3');
    expect(sum('123456789012345678901.123456789', '0.000000001')).toBe(
      '123456789012345678901.12345679',
    );
  });

  it('multiplies and divides without losing digits', () => {
    expect(decimal('0.015').times('67500').toFixed()).toBe('1012.5');
    expect(decimal('1').div(3).toDecimalPlaces(30).toFixed()).toBe(
      '0.333333333333333333333333333333',
    );
  });

  it.each([
    ['up', '0.12345', 4, '0.1235'],
    ['down', '0.12349', 4, '0.1234'],
    ['half-even', '0.12345', 4, '0.1234'],
    ['half-even', '0.12355', 4, '0.1236'],
    ['half-up', '0.12345', 4, '0.1235'],
    ['ceil', '-0.12341', 4, '-0.1234'],
    ['floor', '-0.12341', 4, '-0.1235'],
  ] as const)('rounds %s: %s to %i places is %s', (mode, value, places, expected) => {
    expect(round(value, places, mode)).toBe(expected);
  });

  it('refuses what is not a decimal, naming the argument', () => {
    expect(() => sum('1', 'one')).toThrow(
      new InvalidDecimalError('values[1]', '"one" is not a decimal number'),
    );
  });
});
