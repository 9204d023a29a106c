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
    expect(() =>
      parseExpectedFailures('[{"id":"AUTH-ALG-NONE","reason":"r","expires":"soon"}]'),
    ).toThrow('needs expires as a date');
    expect(() => parseExpectedFailures('{}')).toThrow('must be a JSON array');
  });

  it('refuses an id no requirement has and a day the calendar lacks, naming the entry', () => {
    const file = (entries: object[]) => JSON.stringify(entries);
    const known = { id: 'AUTH-ALG-NONE', reason: 'r', expires: '2030-01-31' };
    expect(() =>
      parseExpectedFailures(file([known, { ...known, id: 'AUTH-ALG-NONNE' }]), 'xf.json'),
    ).toThrow(
      'xf.json[1] (AUTH-ALG-NONNE): no requirement has this id; `exchange-conformance list` shows them all',
    );
    expect(() =>
      parseExpectedFailures(file([known, { ...known, expires: '2030-02-31' }]), 'xf.json'),
    ).toThrow(
      'xf.json[1] (AUTH-ALG-NONE) needs expires as a date of the calendar, YYYY-MM-DD, not 2030-02-31',
    );
    expect(parseExpectedFailures(file([{ ...known, expires: '2028-02-29' }]))).toHaveLength(1);
  });

  it('applies through the whole day of its expiry and no longer', () => {
    const entry = { id: 'X', reason: 'r', expires: '2026-12-31' };
    expect(isCurrent(entry, new Date('2026-12-31T23:59:59Z'))).toBe(true);
    expect(isCurrent(entry, new Date('2027-01-01T00:00:00Z'))).toBe(false);
  });
});
