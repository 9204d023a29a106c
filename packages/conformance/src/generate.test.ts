import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { badInputOperations } from './catalog.js';
import { arbitraryOf, fastCheckSeed } from './generate.js';
import { operation, requestSchema, requestSchemaPointer } from './spec.js';
import { validatorAt } from './validate.js';

describe('bodies generated from the request schemas', () => {
  it.each(badInputOperations)('mostly meet the schema of %s before any filter', (operationId) => {
    const { api } = operation(operationId);
    const validate = validatorAt(api, requestSchemaPointer(operationId) as string);
    const bodies = fc.sample(arbitraryOf(api, requestSchema(operationId)), {
      numRuns: 200,
      seed: 42,
    });
    const valid = bodies.filter((body) => validate(body) === true);
    // Only keywords relating fields (a price required for limit orders) are left to the filter.
    expect(valid.length / bodies.length).toBeGreaterThan(0.5);
  });

  it('draws strings of a pattern, uuids, enum values and lengths as the schema says', () => {
    const body = fc.sample(arbitraryOf('partner', requestSchema('intentToTrade')), {
      numRuns: 50,
      seed: 7,
    }) as Record<string, unknown>[];
    for (const one of body) {
      expect(one.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(one.symbol).toMatch(/^[A-Z0-9]+\/[A-Z0-9]+$/);
      expect(['buy', 'sell']).toContain(one.side);
      expect(String(one.currency).length).toBeLessThanOrEqual(16);
    }
  });

  it('derives one fast-check seed per seed and purpose', () => {
    expect(fastCheckSeed('abc', 'createOrder:valid')).toBe(
      fastCheckSeed('abc', 'createOrder:valid'),
    );
    expect(fastCheckSeed('abc', 'createOrder:valid')).not.toBe(
      fastCheckSeed('abd', 'createOrder:valid'),
    );
    expect(fastCheckSeed('abc', 'createOrder:valid')).not.toBe(
      fastCheckSeed('abc', 'createOrder:invalid'),
    );
  });
});
