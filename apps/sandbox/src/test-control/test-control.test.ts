import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MemoryApp, memoryApp } from '../testing/memory-app.js';

type Row = Record<string, unknown>;

let started: MemoryApp;

beforeAll(async () => {
  started = await memoryApp({ testControl: true });
});
afterAll(() => started?.app.close());

const post = async (url: string, payload: Record<string, unknown>) => {
  const answer = await started.app.inject({ method: 'POST', url, payload });
  return { status: answer.statusCode, body: answer.json() as unknown };
};

/** Each path with a parameter, the parameter's name and kind, and a body it would take. */
const parameterised = [
  ['/test/loan_bids/{}/borrow', 'loan_bid_id', 'must_be_an_integer', { quantity: '0.1' }],
  ['/test/loans/{}/repay', 'loan_id', 'must_be_an_integer', {}],
  ['/test/withdrawals/{}/state', 'withdrawal_id', 'must_be_an_integer', { state: 'processing' }],
  ['/test/products/{}/mark_price', 'product_id', 'must_be_an_integer', { price: '1' }],
  ['/test/transactions/{}/status', 'transaction_id', 'must_be_a_uuid', { status: 'FILLED' }],
  ['/test/oauth_requests/{}/deny', 'oauth_request_public_id', 'must_be_a_uuid', {}],
] as const;

describe('the test-control paths', () => {
  it('refuse each path parameter that is not of its kind, naming it', async () => {
    const answered: unknown[] = [];
    const expected: unknown[] = [];
    for (const [template, name, code, body] of parameterised) {
      const cases: [string, string][] = [
        ['abc', code],
        ['1.5', code],
        ['-1', code],
        ['1e3', code],
        ['%20', code],
        ['%E0%A4%A', 'must_be_valid_percent_encoding'],
      ];
      for (const [bad, why] of cases) {
        const url = template.replace('{}', bad);
        answered.push([url, await post(url, body)]);
        expected.push([url, { status: 422, body: { errors: { [name]: [why] } } }]);
      }
    }
    expect(answered).toEqual(expected);
  });

  it('answer a parameter of its kind that names nothing with 404', async () => {
    const unknown = { uuid: '00000000-0000-4000-8000-000000000000', integer: '999999' };
    for (const [template, , code, body] of parameterised) {
      const id = code === 'must_be_a_uuid' ? unknown.uuid : unknown.integer;
      const url = template.replace('{}', id);
      expect([url, (await post(url, body)).status]).toEqual([url, 404]);
    }
  });

  it('refuse a body key a call does not take, naming it, and do nothing', async () => {
    const userId = async () => Number(((await post('/test/users', {})).body as Row).user_id);
    const before = await userId();
    for (const [url, body, key] of [
      ['/test/users', { first_name: 'Carol', last_name: 'Smith' }, 'last_name'],
      ['/test/clock', { advance_seconds: 60, advance_second: 60 }, 'advance_second'],
      ['/test/products/1/mark_price', { price: '9500000', mark: '1' }, 'mark'],
      ['/test/loans/1/repay', { quantity: '1' }, 'quantity'],
    ] as const) {
      expect([url, await post(url, body)]).toEqual([
        url,
        { status: 422, body: { errors: { [key]: ['unknown_field'] } } },
      ]);
    }
    // The refused user was not added: the next one takes the id after the last.
    expect(await userId()).toBe(before + 1);
  });
});

describe('the clock', () => {
  it('answers each advance with the time its own call set, not one a later call set since', async () => {
    const hour = 3600;
    const calls = 10;
    const { body } = await post('/test/clock', { advance_seconds: 0 });
    const before = (body as { now: number }).now;
    // In flight together: a later call may be decided before an earlier one is stored.
    const answers = await Promise.all(
      Array.from({ length: calls }, () => post('/test/clock', { advance_seconds: hour })),
    );
    const hours = answers
      .map((answer) => Math.round(((answer.body as { now: number }).now - before) / hour))
      .sort((a, b) => a - b);
    expect(hours).toEqual(Array.from({ length: calls }, (_, n) => n + 1));
  });
});
