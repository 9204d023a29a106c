import { describe, expect, it } from 'vitest';
import { isCurrent, parseExpectedFailures } from './expected-failures.js';

describe('expected-failures files', () => {
  it('reads entries of id, reason and expiry', () => {
    const [entry] = parseExpectedFailures(
      '[{"id":"AUTH-ALG-NONE","reason":"fix under way","expires":"2026-12-31"}]',
    );
    expect(entry).toEqual({ id: 'AUTH-ALG-NONE', reason: 'fix under way', expires: '2026-12-31' });
  });

  it('refuses entries without a reason or a date', () => {
    expect(() => parseExpectedFailures('[{"id":"X","expires":"2026-12-31"}]')).toThrow(
      'needs an id and a reason',
    );
    expect(() => parseExpectedFailures('[{"id":"X","reason":"r","expires":"soon"}]')).toThrow(
      'needs expires as a date',
    );
    expect(() => parseExpectedFailures('{}')).toThrow('must be a JSON array');
  });

  it('applies through the whole day of its expiry and no longer', () => {
    const entry = { id: 'X', reason: 'r', expires: '2026-12-31' };
    expect(isCurrent(entry, new Date('2026-12-31T23:59:59Z'))).toBe(true);
    expect(isCurrent(entry, new Date('2027-01-01T00:00:00Z'))).toBe(false);
  });
});
