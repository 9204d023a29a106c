import { bundledDocuments } from '@exchange-kit/contract/documents';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateBodies } from '../scenarios/generated.js';
import type { ScenarioContext } from '../scenarios/scenario.js';
import { badInputOperations } from './catalog.js';
import { Evidences } from './context.js';
import { arbitraryOf, fastCheckSeed, maxFilterTries, satisfying, unsatisfied } from './generate.js';
import { operation, requestSchema, requestSchemaPointer } from './spec.js';
import { validatorAt } from './validate.js';

type Row = Record<string, unknown>;

// Two members agreeing on nothing: `kind` must be both 1 and 2.
const unsatisfiable = {
  allOf: [
    { type: 'object', required: ['kind'], properties: { kind: { const: 1 } } },
    { type: 'object', required: ['kind'], properties: { kind: { const: 2 } } },
  ],
};

describe('bodies generated from the request schemas', () => {
  it.each(badInputOperations)('mostly meet the schema of %s before any filter', (operationId) => {
    const { api } = operation(operationId);
    const validate = validatorAt(api, requestSchemaPointer(operationId) as string);
    const bodies = fc.sample(arbitraryOf(api, requestSchema(operationId)), {
      numRuns: 200,
      seed: 42,
    });
    const valid = bodies.filter((body) => validate(body) === true);
    // Only keywords relating fields (`if` / `then`) are left to the filter.
    expect(valid.length / bodies.length).toBeGreaterThan(0.5);
  });

  it('draws each member of the order union whole, every order type among them', () => {
    const { api } = operation('createOrder');
    const validate = validatorAt(api, requestSchemaPointer('createOrder') as string);
    const bodies = fc.sample(arbitraryOf(api, requestSchema('createOrder')), {
      numRuns: 300,
      seed: 11,
    }) as Row[];
    expect(bodies.filter((body) => validate(body) !== true)).toEqual([]);
    const orders = bodies.map((body) => (body.order ?? body) as Row);
    const types = new Set(orders.map((order) => order.order_type));
    const mapping = ((bundledDocuments.exchange.components as Row).schemas as Record<string, Row>)
      .OrderCreate?.discriminator as { mapping: Row };
    expect([...types].sort()).toEqual(Object.keys(mapping.mapping).sort());
    // Each type carries the fields its member requires.
    for (const order of orders) {
      if (order.order_type === 'limit') expect(order.price).toEqual(expect.any(String));
      if (order.order_type === 'market_with_range')
        expect(order.price_range).toEqual(expect.any(String));
      if (order.order_type === 'trailing_stop')
        expect(order.trailing_stop_value).toEqual(expect.any(String));
    }
    // Both forms of the body: flat and wrapped as {order}.
    expect(bodies.some((body) => 'order' in body)).toBe(true);
    expect(bodies.some((body) => 'order_type' in body)).toBe(true);
  });

  it('gives up on a filter nothing passes after a bounded number of draws', () => {
    let draws = 0;
    const never = satisfying(fc.integer(), () => {
      draws++;
      return false;
    });
    expect(fc.sample(never, { numRuns: 3, seed: 1 })).toEqual([
      unsatisfied,
      unsatisfied,
      unsatisfied,
    ]);
    expect(draws).toBe(3 * maxFilterTries);
  });

  it('gives ERROR with the reason, without calling the server, for a schema nothing meets', async () => {
    const evidence = new Evidences();
    let calls = 0;
    const context = {
      seed: 'unsatisfiable',
      maxExamples: 10,
      evidence,
      caller: {
        call: async () => {
          calls++;
          throw new Error('no body should have been sent');
        },
      },
    } as unknown as ScenarioContext;
    const target = {
      operationId: 'createOrder',
      prepare: async () => ({ call: {}, base: () => ({}), unchanged: async () => undefined }),
    };
    const source = {
      api: 'exchange' as const,
      schema: unsatisfiable,
      validate: new Ajv2020({ strict: false }).compile(unsatisfiable),
    };
    await generateBodies(context, target, 'valid', source);
    await generateBodies(context, target, 'invalid', source);
    expect(calls).toBe(0);
    expect(evidence.all).toEqual([
      expect.objectContaining({
        requirementId: 'INPUT-GENERATED-VALID',
        outcome: 'error',
        message: expect.stringMatching(/no body its request schema accepts in 10 of 10 examples/),
      }),
      expect.objectContaining({ requirementId: 'INPUT-GENERATED-INVALID', outcome: 'error' }),
    ]);
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
