import { describe, expect, it } from 'vitest';
import { InvalidDecimalError } from '../errors.js';
import { normaliseDecimals } from './normalise.js';

describe('normaliseDecimals', () => {
  it('rewrites the decimals the plan marks, through arrays, maps and tuples', () => {
    const body = {
      id: 7,
      quantity: 0.5,
      price: '5000.50',
      bids: [
        ['0.00010', 12],
        ['2e-4', '3.0'],
      ],
      models: [{ price: 1e21, label: '1.0' }],
      take_profit: null,
    };
    const plan = {
      quantity: true,
      price: true,
      take_profit: true,
      bids: { '*': { '0': true, '1': true } },
      models: { '*': { price: true } },
    } as const;
    expect(normaliseDecimals(body, plan)).toEqual({
      id: 7,
      quantity: '0.5',
      price: '5000.5',
      bids: [
        ['0.0001', '12'],
        ['0.0002', '3'],
      ],
      models: [{ price: '1000000000000000000000', label: '1.0' }],
      take_profit: null,
    });
  });

  it('names the path of a decimal that is not one', () => {
    expect(() =>
      normaliseDecimals({ models: [{ price: 'abc' }] }, { models: { '*': { price: true } } }),
    ).toThrow(new InvalidDecimalError('$.models.0.price', '"abc" is not a decimal number'));
  });
});
