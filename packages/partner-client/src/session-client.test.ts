import {
  advanceSandboxClock,
  type SandboxProcess,
  startSandboxProcess,
} from '@exchange-kit/sandbox/testing';
import { type SentRequest, scriptedFetch } from '@exchange-kit/test-support/scripted-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartnerClient as createBrowserClient } from './browser.js';
import {
  AuthenticationError,
  createPartnerClient,
  isValidationErrorOf,
  type PartnerClient,
} from './index.js';

// A sandbox playing a service that requires the session Bearer JWT on every session call.
let sandbox: SandboxProcess;
let browser: PartnerClient;
// What the browser client sent, in order: the sandbox answers every call.
let sent: SentRequest[];
const seenAuthorization = () => sent.map(({ request }) => request.headers.get('authorization'));

beforeAll(async () => {
  sandbox = await startSandboxProcess(60_000, ['--require-session-auth']);
  const observed = scriptedFetch([], { otherwise: globalThis.fetch });
  sent = observed.sent;
  const { fetch } = observed;
  browser = createBrowserClient({
    partnersUrl: sandbox.partnerUrl,
    publicApiKey: sandbox.publicApiKey,
    fetch,
  });
}, 60_000);
afterAll(() => sandbox?.stop());

const order = { symbol: 'BTC/USDC', currency: 'BTC', side: 'buy', quantity: '0.01' } as const;

describe('session client', () => {
  it('signs every session call with the session secret, where unsigned calls are refused', async () => {
    const session = await browser.sessions.create();
    const unsigned = await browser.transactions
      .create({ ...order, session_id: session.session_id })
      .catch((e: unknown) => e);
    expect(unsigned).toBeInstanceOf(AuthenticationError);

    const signed = browser.forSession(session);
    expect(signed.sessionId).toBe(session.session_id);
    sent.length = 0;
    const created = await signed.transactions.create({ ...order, session_id: session.session_id });
    const funding = await signed.transactions.setMethod({
      transaction_id: created.transaction_id,
      direction: 'FUNDING',
      method: 'BLOCKCHAIN_TRANSFER',
    });
    const payout = await signed.transactions.setMethod({
      transaction_id: created.transaction_id,
      direction: 'PAYOUT',
      method: 'SERVICE_PARTNER_WALLET',
    });
    expect([funding.direction, payout.direction]).toEqual(['FUNDING', 'PAYOUT']);
    // Concurrent calls of one session draw increasing nonces; none is refused for its nonce.
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () => signed.transactions.status(created.transaction_id)),
    );
    expect(statuses.map((t) => t.status)).toEqual(Array(5).fill('PENDING'));
    expect(seenAuthorization().length).toBeGreaterThanOrEqual(8);
    expect(seenAuthorization().every((value) => value?.startsWith('Bearer '))).toBe(true);
  });

  it("cannot act on another session's transaction, and names an expired instruction's 422", async () => {
    const mine = browser.forSession(await browser.sessions.create());
    const theirs = browser.forSession(await browser.sessions.create());
    const created = await mine.transactions.create({ ...order, session_id: mine.sessionId });
    await expect(theirs.transactions.status(created.transaction_id)).rejects.toMatchObject({
      name: 'NotFoundError',
    });

    const payout = await mine.transactions.setMethod({
      transaction_id: created.transaction_id,
      direction: 'PAYOUT',
      method: 'BLOCKCHAIN_TRANSFER',
    });
    await advanceSandboxClock(sandbox, 30);
    const error = await mine.transactions
      .setParameters({
        settlement_instruction_id: payout.settlement_instruction_id,
        input_parameters: { account_key: { type: 'WALLET_ADDRESS', value: 'bc1qexample' } },
      })
      .catch((e: unknown) => e);
    expect(isValidationErrorOf(error, 'setSettlementParameters')).toBe(true);
    if (isValidationErrorOf(error, 'setSettlementParameters')) {
      expect(error.fields.settlement_instruction_id).toEqual(['expired']);
    }
  });

  it('is the same on the Node build', async () => {
    const node = createPartnerClient({
      partnersUrl: sandbox.partnerUrl,
      publicApiKey: sandbox.publicApiKey,
    });
    const session = node.forSession(await node.sessions.create());
    const created = await session.transactions.create({ ...order, session_id: session.sessionId });
    expect(created.status).toBe('SETTLEMENT_METHOD_REQUIRED');
  });
});
