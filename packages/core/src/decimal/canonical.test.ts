import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidDecimalError } from '../errors.js';
import { toDecimalString } from './canonical.js';

describe('toDecimalString', () => {
  it.each([
    [0.1, '0.1'],
    [5000.5, '5000.5'],
    ['5000.50', '5000.5'],
    ['0012.3400', '12.34'],
    [1e21, '1000000000000000000000'],
    [1e-7, '0.0000001'],
    ['1.5e3', '1500'],
    ['+.5', '0.5'],
    ['-12.50E-3', '-0.0125'],
    ['1e400', `1${'0'.repeat(400)}`],
    [-0, '0'],
    ['-0.000', '0'],
    ['-0', '0'],
    ['0.0', '0'],
    ['9600000.0', '9600000'],
    ['-5.10', '-5.1'],
    ['10.', '10'],
    ['100', '100'],
    ['123456789012345678901.123456789', '123456789012345678901.123456789'],
    [new Decimal('0.30000000000000000001'), '0.30000000000000000001'],
  ])('writes %s as %s', (input, expected) => {
    expect(toDecimalString(input, 'quantity')).toBe(expected);
  });

  it.each([
    [Number.NaN, 'NaN is not a finite number'],
    [Number.POSITIVE_INFINITY, 'Infinity is not a finite number'],
    ['', '"" is not a decimal number'],
    [' 1', '" 1" is not a decimal number'],
    ['1,000', '"1,000" is not a decimal number'],
    ['0x10', '"0x10" is not a decimal number'],
    [new Decimal(Number.NaN), 'NaN is not a finite number'],
    ['.', '"." is not a decimal number'],
    ['1e999999', '"1e999999" has an exponent beyond ±400'],
    [null as unknown as string, 'expected a number, a decimal string or a Decimal, got null'],
  ])('refuses %s naming the field', (input, reason) => {
    const error = (() => {
      try {
        toDecimalString(input, 'order.price');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InvalidDecimalError);
    expect(error).toMatchObject({
      field: 'order.price',
      reason,
      message: `order.price: ${reason}`,
    });
  });

  it('round-trips every finite double through its canonical string', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = toDecimalString(value, 'x');
        expect(text).not.toMatch(/e/i);
        expect(Number(text)).toBe(value === 0 ? 0 : value);
      }),
    );
  });

  it('writes text with trailing zeros as decimal.js reads it', () => {
    const padded = fc
      .tuple(fc.stringMatching(/^-?(0|[1-9]\d{0,20})(\.\d{0,12})?$/), fc.nat({ max: 4 }))
      .map(([text, zeros]) => (text.includes('.') ? text : `${text}.`) + '0'.repeat(zeros));
    fc.assert(
      fc.property(padded, (text) => {
        expect(toDecimalString(text, 'x')).toBe(new Decimal(text).toFixed());
      }),
    );
  });

  it('reads any text as decimal.js does, or refuses it as decimal.js does', () => {
    // Short strings over the characters a decimal is made of reach both the one-pass reading
    // of plain decimals and the general one, and every way of being malformed in between.
    const text = fc.string({ unit: fc.constantFrom(...'-+.0123456789eE'), maxLength: 12 });
    // An exponent beyond ±400 is refused as a typo, whatever its mantissa.
    const decimalJs = (value: string) => {
      const exponent = /[eE]([+-]?\d+)$/.exec(value)?.[1];
      if (exponent !== undefined && Math.abs(Number(exponent)) > 400) return undefined;
      try {
        const read = new Decimal(value.trim() === value ? value : 'x');
        return read.isFinite() ? read.toFixed() : undefined;
      } catch {
        return undefined;
      }
    };
    fc.assert(
      fc.property(text, (value) => {
        let ours: string | undefined;
        try {
          ours = toDecimalString(value, 'x');
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidDecimalError);
        }
        const expected = decimalJs(value);
        expect(ours).toBe(expected === '-0' ? '0' : expected);
      }),
      { numRuns: 20_000, seed: 15 },
    );
  });

  it('keeps every digit of decimal strings longer than a double holds', () => {
    const canonical = fc
      .stringMatching(/^-?(0|[1-9]\d{0,40})(\.\d{0,30}[1-9])?$/)
      .filter((text) => text !== '-0');
    fc.assert(
      fc.property(canonical, (text) => {
        expect(toDecimalString(text, 'x')).toBe(text);
      }),
    );
  });
});
