import { describe, expect, it } from 'vitest';
import { InvalidDecimalError } from '../errors.js';
import { decimal, isMultipleOf, round, roundToStep, sum } from './arithmetic.js';

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

  it.each([
    ['down', '5000.37', '0.5', '5000'],
    ['up', '5000.01', '0.5', '5000.5'],
    ['half-up', '5000.25', '0.5', '5000.5'],
    ['half-even', '5000.25', '0.5', '5000'],
    ['half-even', '5000.75', '0.5', '5001'],
    ['down', '0.123456789', '0.00001', '0.12345'],
    ['down', 0.30000000000000004, '0.1', '0.3'],
    ['floor', '-1.25', '0.5', '-1.5'],
    ['down', '123456789012345678901.123456789', '0.00000001', '123456789012345678901.12345678'],
  ] as const)('rounds %s: %s to a step of %s is %s', (mode, value, step, expected) => {
    expect(roundToStep(value, step, mode)).toBe(expected);
  });

  it('never lets a float artefact out: 0.1 + 0.2 rounded to a tick of 0.1 is "0.3"', () => {
    expect(roundToStep(0.1 + 0.2, '0.1', 'half-even')).toBe('0.3');
    expect(roundToStep(sum(0.1, 0.2), 0.01, 'down')).toBe('0.3');
  });

  it('tells a multiple of a step from a value off it', () => {
    expect(isMultipleOf('9500000', '1')).toBe(true);
    expect(isMultipleOf('9500000.5', '1')).toBe(false);
    expect(isMultipleOf('0.04745', '0.00001')).toBe(true);
    expect(isMultipleOf('0.047455', '0.00001')).toBe(false);
    expect(isMultipleOf('65010.5', 0.5)).toBe(true);
  });

  it('refuses a step that is not positive, naming it', () => {
    expect(() => roundToStep('1', '0', 'down', 'price', 'tick_size')).toThrow(
      new InvalidDecimalError('tick_size', '0 is not a positive step'),
    );
    expect(() => isMultipleOf('1', '-0.5', 'tick_size')).toThrow(
      new InvalidDecimalError('tick_size', '-0.5 is not a positive step'),
    );
  });
});
