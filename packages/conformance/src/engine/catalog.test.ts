import { describe, expect, it } from 'vitest';
import { cancelAllFilterNames, catalog, kebabUpper, profileNames } from './catalog.js';
import { requirements } from './requirements.js';
import { operations } from './spec.js';

describe('the catalog of requirements', () => {
  it('holds every state-table row and unique ids, each with a profile', () => {
    const ids = catalog.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const row of requirements) expect(ids).toContain(row.id);
    for (const requirement of catalog) {
      expect(requirement.profiles.length).toBeGreaterThan(0);
      for (const profile of requirement.profiles) expect(profileNames).toContain(profile);
    }
  });

  it('takes the profile of a state-table row from the spec tags of its operations', () => {
    const profile = (id: string) => catalog.find((r) => r.id === id)?.profiles;
    expect(profile('ORDER-CANCEL-LIVE')).toEqual(['orders']);
    expect(profile('QE-TRADE-NO-METHOD')).toEqual(['partner-transactions']);
    expect(profile('INTENT-STRATEGY-DEFAULT')).toEqual(['partner-sessions']);
    expect(profile('STATUS-200-SUCCESS')).toEqual([
      'orders',
      'loan-book',
      'oauth',
      'partner-sessions',
    ]);
  });

  it('derives the cancel_all filter and response requirements from the specs', () => {
    expect(cancelAllFilterNames()).toEqual(['product_id', 'trading_type', 'side']);
    expect(catalog.filter((r) => r.kind === 'cancel-all-filter').map((r) => r.id)).toEqual([
      'ORDER-CANCEL-ALL-FILTER-PRODUCT-ID',
      'ORDER-CANCEL-ALL-FILTER-TRADING-TYPE',
      'ORDER-CANCEL-ALL-FILTER-SIDE',
    ]);
    expect(catalog.filter((r) => r.kind === 'response')).toHaveLength(operations.size);
    expect(kebabUpper('updateOrderTpslByClientId')).toBe('UPDATE-ORDER-TPSL-BY-CLIENT-ID');
  });
});
