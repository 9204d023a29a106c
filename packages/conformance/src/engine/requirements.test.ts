import { describe, expect, it } from 'vitest';
import { describeOrigin, requirements, tables } from './requirements.js';

describe('requirements', () => {
  it('has unique ids, each from a known table', () => {
    const ids = requirements.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const requirement of requirements) {
      expect(Object.keys(tables)).toContain(requirement.table);
    }
  });

  it('covers every row of the order, transaction and status tables', () => {
    const rows = (table: string) =>
      [...new Set(requirements.filter((r) => r.table === table).map((r) => r.row))].sort();
    expect(rows('order')).toEqual([1, 2, 3, 4]);
    expect(rows('transaction')).toEqual([1, 2, 3]);
    expect(rows('intent-strategy')).toEqual([1, 2]);
    expect(rows('status')).toEqual([1, 2, 3]);
  });

  it('names the origin of a requirement for reports', () => {
    const cancel = requirements.find((r) => r.id === 'ORDER-CANCEL-LIVE');
    const conditional = requirements.find((r) => r.id === 'ORDER-CANCEL-ALL-SKIPS-CONDITIONAL');
    expect(cancel && describeOrigin(cancel)).toBe('Order, row 1');
    expect(conditional && describeOrigin(conditional)).toBe('Order (note under the table)');
  });
});
