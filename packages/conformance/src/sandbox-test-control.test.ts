import { describe, expect, it } from 'vitest';
import { type AdapterStep, defaultAdapter, defaultLacks } from './engine/adapter.js';
import { sandboxTestControl } from './sandbox-test-control.js';

describe("the sandbox's test-control adapter", () => {
  it('gives every step the default adapter lacks, and no other', () => {
    const steps = Object.keys(defaultAdapter) as AdapterStep[];
    expect(Object.keys(sandboxTestControl).sort()).toEqual(steps.filter(defaultLacks).sort());
  });
});
