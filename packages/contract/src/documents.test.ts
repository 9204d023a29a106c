import { describe, expect, it } from 'vitest';
import { apiNames, bundledDocuments } from './documents.js';
import { operationsOf } from './spec-reader.js';

describe('bundledDocuments', () => {
  it.each(apiNames)('holds the %s spec as its type says: request limits and operations', (api) => {
    const document = bundledDocuments[api];
    const limits = document.info['x-request-limits'];
    expect(Number.isInteger(limits['max-body-bytes']) && limits['max-body-bytes'] > 0).toBe(true);
    expect(Number.isInteger(limits['max-nesting-depth']) && limits['max-nesting-depth'] > 0).toBe(
      true,
    );
    expect(operationsOf(document).length).toBeGreaterThan(0);
  });

  it('names exactly the interfaces it holds', () => {
    expect(Object.keys(bundledDocuments).sort()).toEqual([...apiNames].sort());
  });
});
