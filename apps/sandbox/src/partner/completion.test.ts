/** Settlements completing on the sandbox's clock, over real loopback HTTP. */

import {
  zListPartnerTransactionsResponse,
  zTransactionStatusResponse,
} from '@exchange-kit/contract/partner/schemas';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { RunningSandbox } from '../server.js';
import { runCommandLine, startTestSandbox } from '../test-support.js';
import { pendingTransaction as pendingTransactionOver } from '../testing/pending-transaction.js';

let sandbox: RunningSandbox;
let clock = 1_800_000_000_000;

beforeAll(async () => {
  sandbox = await startTestSandbox({ now: () => clock, settleAfterMs: 10_000 });
}, 60_000);
afterAll(() => sandbox.close());

async function send(method: string, path: string, body?: unknown, headers = {}) {
  const response = await fetch(sandbox.partnerUrl + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

function ok<S extends z.core.$ZodType>(schema: S, answer: { status: number; body: unknown }) {
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return z.parse(schema, answer.body);
}

const pendingTransaction = () =>
  pendingTransactionOver(sandbox.partnerUrl, sandbox.credentials.publicApiKey);

const status = async (id: string) =>
  ok(zTransactionStatusResponse, await send('GET', `/api/v1/transaction/status/${id}`));

describe('settlements completing after --settle-after', () => {
  it('keeps a transaction PENDING until its settlements have run, then answers FILLED', async () => {
    const id = await pendingTransaction();
    clock += 9_999;
    expect((await status(id)).payload.status).toBe('PENDING');
    clock += 1;
    const filled = await status(id);
    expect(filled.payload.status).toBe('FILLED');
    expect(filled.message).toBe('Transaction filled.');
    for (const instruction of [
      filled.payload.funding_settlement,
      filled.payload.payout_settlement,
    ]) {
      expect(instruction).toMatchObject({ status: 'COMPLETE' });
    }
  });

  it('completes a transaction whose completion a refused call took back', async () => {
    const id = await pendingTransaction();
    clock += 10_000;
    // The completion runs before the call is decided; the call is refused, so it is undone.
    const unknown = await send(
      'GET',
      '/api/v1/transaction/status/00000000-0000-4000-8000-000000000000',
    );
    expect(unknown.status).toBe(404);
    expect((await status(id)).payload.status).toBe('FILLED');
  });

  it('completes only transactions that are PENDING, however many others there are', async () => {
    const pending = await pendingTransaction();
    const filled = await pendingTransaction();
    clock += 10_000;
    expect((await status(filled)).payload.status).toBe('FILLED');
    const fresh = await pendingTransaction();
    clock += 9_999;
    expect((await status(fresh)).payload.status).toBe('PENDING');
    expect((await status(pending)).payload.status).toBe('FILLED');
    clock += 1;
    expect((await status(fresh)).payload.status).toBe('FILLED');
  });

  it('lists the partner transaction as FILLED too', async () => {
    const id = await pendingTransaction();
    clock += 10_000;
    const path = `/api/v1/partner/${sandbox.credentials.publicApiKey}/transactions`;
    const { tokenId, tokenSecret } = sandbox.credentials;
    const jwt = await signServiceAuth({ tokenId, tokenSecret }, { path, delegate: true });
    const listing = ok(
      zListPartnerTransactionsResponse,
      await send('GET', path, undefined, { 'X-Service-Auth': jwt }),
    ).payload;
    expect(listing.transactions.find((t) => t.transaction_id === id)?.status).toBe('FILLED');
  });
});

describe('--settle-after', () => {
  it('refuses a value that is neither never nor seconds, naming the option', () => {
    const result = runCommandLine(['--settle-after', 'soon']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /--settle-after: "soon" is neither never nor a number of seconds/,
    );
  });
});
