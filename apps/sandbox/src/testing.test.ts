/** The testing entry and the test-control endpoints, as other packages' tests use them. */
import { zTransactionStatusResponse } from '@exchange-kit/contract/partner/schemas';
import { serviceAuthJwt } from '@exchange-kit/core/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { clientFor, startTestSandbox } from './test-support.js';
import { pendingTransaction as pendingTransactionOver } from './testing/pending-transaction.js';
import { addSandboxUser, type SandboxProcess, startSandboxProcess } from './testing.js';

let sandbox: SandboxProcess;

beforeAll(async () => {
  sandbox = await startSandboxProcess(60_000, ['--settle-after', '60']);
}, 90_000);
afterAll(() => sandbox?.stop());

async function send(path: string, body?: unknown, base = sandbox.partnerUrl) {
  const response = await fetch(base + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

function ok<S extends z.core.$ZodType>(schema: S, answer: { status: number; body: unknown }) {
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return z.parse(schema, answer.body);
}

const pendingTransaction = () => pendingTransactionOver(sandbox.partnerUrl, sandbox.publicApiKey);

const statusOf = async (id: string) =>
  ok(zTransactionStatusResponse, await send(`/api/v1/transaction/status/${id}`)).payload.status;

describe('startSandboxProcess', () => {
  it('hands over the URLs and the credentials the sandbox runs with', async () => {
    expect(sandbox.exchangeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await send('/health', undefined, sandbox.exchangeUrl)).toEqual({
      status: 200,
      body: { status: 'ok' },
    });
    // The key it handed over is the one the sandbox seeded.
    await pendingTransaction();
  });
});

describe('test control', () => {
  it('ends a transaction in a terminal state of the transaction table', async () => {
    const id = await pendingTransaction();
    const ended = await send(`/test/transactions/${id}/status`, { status: 'CANCELLED' });
    expect(ended).toEqual({ status: 200, body: { transaction_id: id, status: 'CANCELLED' } });
    expect(await statusOf(id)).toBe('CANCELLED');
  });

  it('refuses a state that is not terminal, naming the field, and an unknown transaction', async () => {
    const id = await pendingTransaction();
    expect(await send(`/test/transactions/${id}/status`, { status: 'PENDING' })).toEqual({
      status: 422,
      body: { errors: { status: ['must_be_one_of:FILLED,CANCELLED'] } },
    });
    expect(await statusOf(id)).toBe('PENDING');
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await send(`/test/transactions/${unknown}/status`, { status: 'FILLED' })).status).toBe(
      404,
    );
  });

  it('moves the clock forward, and --settle-after follows it', async () => {
    const id = await pendingTransaction();
    expect(await statusOf(id)).toBe('PENDING');
    const moved = await send('/test/clock', { advance_seconds: 60 });
    expect(moved.status).toBe(200);
    expect(await statusOf(id)).toBe('FILLED');
    expect(await send('/test/clock', { advance_seconds: -1 })).toMatchObject({ status: 422 });
  });

  it('answers another method with 405 and Allow: POST, and a path it does not serve with 404', async () => {
    for (const method of ['GET', 'HEAD', 'PUT']) {
      const answer = await fetch(`${sandbox.partnerUrl}/test/clock`, { method });
      expect([method, answer.status, answer.headers.get('allow')]).toEqual([method, 405, 'POST']);
    }
    for (const method of ['GET', 'POST']) {
      const answer = await fetch(`${sandbox.partnerUrl}/test/nope`, { method });
      expect([method, answer.status]).toEqual([method, 404]);
    }
  });

  it('is not served unless the sandbox starts with --test-control', async () => {
    const plain = await startTestSandbox();
    try {
      const answer = await send('/test/clock', { advance_seconds: 1 }, plain.exchangeUrl);
      expect(answer.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('test control of withdrawals and deposits', () => {
  const demo = () =>
    clientFor(sandbox, { tokenId: sandbox.tokenId, tokenSecret: sandbox.tokenSecret });

  it('moves a withdrawal as a row of the table allows, and names the state otherwise', async () => {
    const call = demo();
    const body = {
      crypto_withdrawal: {
        currency: 'ETH',
        address: '0x52908400098527886E0F7030069857D2E4169EE7',
        amount: '1',
      },
    };
    const created = await call('POST', '/crypto_withdrawals', { body });
    const { id } = created.body as { id: number };
    expect(
      await send(`/test/withdrawals/${id}/state`, { state: 'processed' }, sandbox.exchangeUrl),
    ).toEqual({
      status: 422,
      body: { errors: { state: ['pending'] } },
    });
    for (const state of ['processing', 'processed']) {
      expect(await send(`/test/withdrawals/${id}/state`, { state }, sandbox.exchangeUrl)).toEqual({
        status: 200,
        body: { withdrawal_id: id, state },
      });
    }
    expect(
      (await send('/test/withdrawals/999999/state', { state: 'declined' }, sandbox.exchangeUrl))
        .status,
    ).toBe(404);
    expect(await send(`/test/withdrawals/${id}/state`, {}, sandbox.exchangeUrl)).toMatchObject({
      status: 422,
      body: { errors: { state: ['required'] } },
    });
    for (const state of ['bogus', 1, null]) {
      expect(await send(`/test/withdrawals/${id}/state`, { state }, sandbox.exchangeUrl)).toEqual({
        status: 422,
        body: { errors: { state: ['not_a_withdrawal_state'] } },
      });
    }
  });

  it('credits a deposit, refusing a bad one naming the field', async () => {
    const credited = await send(
      '/test/deposits',
      { user_id: 1001, currency: 'XRP', amount: '25' },
      sandbox.exchangeUrl,
    );
    expect(credited).toMatchObject({
      status: 200,
      body: { currency: 'XRP', amount: '25', state: 'received' },
    });
    const infos = await demo()('GET', '/fund_infos?currency=XRP');
    expect(infos.body).toMatchObject({ models: [{ amount: '25', state: 'received' }] });
    expect(
      await send(
        '/test/deposits',
        { user_id: 1001, currency: 'XRP', amount: '-1' },
        sandbox.exchangeUrl,
      ),
    ).toEqual({
      status: 422,
      body: { errors: { amount: ['valid_amount'] } },
    });
    expect(
      (
        await send(
          '/test/deposits',
          { user_id: 1, currency: 'XRP', amount: '1' },
          sandbox.exchangeUrl,
        )
      ).status,
    ).toBe(404);
  });
});

describe('test control of a mark price', () => {
  it('sets a product mark price, refusing a bad one naming the field', async () => {
    const mark = (productId: number | string, body: unknown) =>
      send(`/test/products/${productId}/mark_price`, body, sandbox.exchangeUrl);
    const products = (await send('/products', undefined, sandbox.exchangeUrl)).body as {
      id: string;
    }[];
    const id = Number(products[0]?.id);
    expect(await mark(id, { price: '6100000.5' })).toEqual({
      status: 200,
      body: { product_id: id, mark_price: '6100000.5' },
    });
    for (const price of ['-1', '0', '1e3', 61]) {
      expect(await mark(id, { price })).toEqual({
        status: 422,
        body: { errors: { price: ['must_be_a_positive_decimal_string'] } },
      });
    }
    expect(await mark('x', { price: '1' })).toMatchObject({
      status: 422,
      body: { errors: { product_id: ['must_be_an_integer'] } },
    });
    expect((await mark(999999, { price: '1' })).status).toBe(404);
    // Only positions are valued at a mark, and a spot product has none.
    const spot = (await send('/products', undefined, sandbox.exchangeUrl)).body as {
      id: string;
      margin_enabled: boolean;
    }[];
    const spotOnly = spot.find((product) => !product.margin_enabled);
    expect(spotOnly).toBeDefined();
    expect(await mark(spotOnly?.id ?? 0, { price: '1' })).toEqual({
      status: 422,
      body: { errors: { product_id: ['not_a_margin_product'] } },
    });
  });
});

describe('test control of users', () => {
  it('adds a user whose token signs its calls', async () => {
    const user = await addSandboxUser(sandbox, { firstName: 'Carol' });
    const path = '/user/context';
    const response = await fetch(sandbox.exchangeUrl + path, {
      headers: { 'x-service-auth': await serviceAuthJwt(user, { path }) },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ user_id: user.userId, first_name: 'Carol' });
  });
});
