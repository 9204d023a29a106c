import { describe, expect, it } from 'vitest';
import { allowedTypes, deriveBadInput } from './bad-input.js';
import { requestExamples, requestSchema } from './spec.js';

const intent = { ...(requestExamples('createIntent').paymentRequest as Record<string, unknown>) };
const cases = deriveBadInput('partner', requestSchema('createIntent'), intent);
const byRequirement = (id: string) =>
  cases.filter((c) => c.requirementId === id).map((c) => c.pointer);

describe('bad input derived from a request schema', () => {
  it('leaves out each required field, nested ones included', () => {
    expect(byRequirement('INPUT-MISSING-REQUIRED')).toEqual([
      '/payout_settlement',
      '/payout_settlement/method',
      '/payout_settlement/currency',
    ]);
    const missing = cases.find((c) => c.pointer === '/payout_settlement');
    expect(missing?.body).not.toHaveProperty('payout_settlement');
  });

  it('makes partner_order_id one character longer than its maxLength of 40', () => {
    const tooLong = cases.find(
      (c) => c.requirementId === 'INPUT-TOO-LONG' && c.pointer === '/partner_order_id',
    );
    expect(
      (tooLong?.body as { partner_order_id?: string } | undefined)?.partner_order_id,
    ).toHaveLength(41);
  });

  it('adds a key only to a closed object: an intent and its settlement, cancel_all filters and an edit, not a session', () => {
    expect(byRequirement('INPUT-UNKNOWN-FIELD')).toEqual([
      '/payout_settlement/conformance_unknown_field',
      '/conformance_unknown_field',
    ]);
    const session = deriveBadInput('partner', requestSchema('createSession'), {
      public_api_key: 'pk_x',
    });
    expect(session.map((c) => c.requirementId)).not.toContain('INPUT-UNKNOWN-FIELD');
    const filters = deriveBadInput('exchange', requestSchema('cancelAllOrders'), { side: 'buy' });
    expect(filters.filter((c) => c.requirementId === 'INPUT-UNKNOWN-FIELD')).toEqual([
      expect.objectContaining({
        pointer: '/conformance_unknown_field',
        body: { side: 'buy', conformance_unknown_field: true },
      }),
    ]);
    const edit = deriveBadInput('exchange', requestSchema('editOrder'), { price: '1' });
    expect(edit.map((c) => c.requirementId)).toContain('INPUT-UNKNOWN-FIELD');
  });

  it('breaks enums, types, patterns and the sign of quantities', () => {
    expect(byRequirement('INPUT-UNKNOWN-ENUM')).toEqual(
      expect.arrayContaining(['/strategy', '/payout_settlement/method']),
    );
    expect(byRequirement('INPUT-WRONG-TYPE')).toEqual(
      expect.arrayContaining(['/partner_tags', '/payout_settlement']),
    );
    expect(byRequirement('INPUT-PATTERN')).toContain('/payout_settlement/quantity');
    expect(byRequirement('INPUT-NEGATIVE-QUANTITY')).toEqual(['/payout_settlement/quantity']);
  });

  it('derives from the oneOf branch the valid body matches', () => {
    const order = {
      order_type: 'limit',
      product_id: 1,
      side: 'buy',
      quantity: '0.01',
      price: '1',
      client_order_id: 'x',
    };
    const orderCases = deriveBadInput('exchange', requestSchema('createOrder'), order);
    expect(
      orderCases.filter((c) => c.requirementId === 'INPUT-MISSING-REQUIRED').map((c) => c.pointer),
    ).toEqual(['/order_type', '/product_id', '/side', '/quantity', '/price']);
    expect(
      orderCases.find(
        (c) => c.pointer === '/order_type' && c.requirementId === 'INPUT-UNKNOWN-ENUM',
      ),
    ).toBeDefined();
    // Each order type requires its own fields: a trailing stop its type and value, no price.
    const trailing = deriveBadInput('exchange', requestSchema('createOrder'), {
      order_type: 'trailing_stop',
      product_id: 1,
      side: 'sell',
      quantity: '0.01',
      trailing_stop_type: 'percentage',
      trailing_stop_value: '2',
    });
    expect(
      trailing.filter((c) => c.requirementId === 'INPUT-MISSING-REQUIRED').map((c) => c.pointer),
    ).toEqual([
      '/order_type',
      '/product_id',
      '/side',
      '/quantity',
      '/trailing_stop_type',
      '/trailing_stop_value',
    ]);
    const wrapped = deriveBadInput('exchange', requestSchema('createOrder'), { order });
    expect(wrapped.map((c) => c.pointer)).toContain('/order/price');
    expect(
      orderCases.find(
        (c) => c.pointer === '/client_order_id' && c.requirementId === 'INPUT-TOO-LONG',
      ),
    ).toBeDefined();
  });

  it('reads the JSON types a schema admits through $ref and oneOf', () => {
    expect(
      [...allowedTypes('exchange', { $ref: '#/components/schemas/DecimalLike' })].sort(),
    ).toEqual(['integer', 'number', 'string']);
    expect([...allowedTypes('exchange', { type: ['integer', 'string'] })].sort()).toEqual([
      'integer',
      'string',
    ]);
  });
});
