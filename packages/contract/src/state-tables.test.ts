import { describe, expect, it } from 'vitest';
import { hasFlag, requirement, requirements, statesWith, stateTables } from './state-tables.js';

describe('state tables', () => {
  it('finds a requirement by id, with its expected outcome', () => {
    expect(requirement('ORDER-EDIT-NOT-LIVE')).toMatchObject({
      table: 'order',
      operations: ['editOrder', 'editOrderByClientId'],
      expect: { status: 404, next: 'unchanged' },
    });
    expect(requirements.length).toBe(stateTables.requirements.length);
  });

  it('refuses an id the tables lack', () => {
    // @ts-expect-error: not a requirement id of the tables
    expect(() => requirement('ORDER-ARCHIVE')).toThrow(/no requirement ORDER-ARCHIVE/);
  });

  it('says what each state is', () => {
    expect(statesWith('order', 'open')).toEqual(['live', 'partially_filled']);
    expect(statesWith('transaction', 'terminal')).toEqual(['FILLED', 'CANCELLED']);
    expect(statesWith('transaction', 'polled')).toEqual(['PENDING']);
    expect(hasFlag('transaction', 'PENDING', 'terminal')).toBe(false);
    expect(hasFlag('transaction', 'SETTLED', 'terminal')).toBe(false);
  });
});
