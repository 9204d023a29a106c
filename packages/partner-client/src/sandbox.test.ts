import { type SandboxProcess, startSandboxProcess } from '@exchange-kit/sandbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPartnerClient,
  hasStatus,
  missingInputs,
  type PartnerClient,
  TransportError,
  ValidationError,
} from './index.js';

// The real sandbox in its own process, over real HTTP on loopback; every answer is checked
// against the spec by the client (validation is on).
let sandbox: SandboxProcess;
let browser: PartnerClient;
let backend: PartnerClient;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  const { partnerUrl: partnersUrl, publicApiKey, tokenId, tokenSecret } = sandbox;
  browser = createPartnerClient({ partnersUrl, publicApiKey });
  backend = createPartnerClient({ partnersUrl, publicApiKey, tokenId, tokenSecret });
}, 60_000);
afterAll(() => sandbox?.stop());

const order = { symbol: 'BTC/USDC', currency: 'BTC', side: 'buy', quantity: 0.01 } as const;

describe('partner-client against the sandbox', () => {
  it('takes the partner URL the sandbox prints as partnersUrl', async () => {
    const printed = /^partner API: +(\S+)/m.exec(sandbox.banner ?? '')?.[1];
    expect(printed).toBe(sandbox.partnerUrl);
    const client = createPartnerClient({
      partnersUrl: printed ?? '',
      publicApiKey: sandbox.publicApiKey,
    });
    const session = await client.sessions.create();
    expect(session.environment).toBe('SANDBOX');
  });

  it('walks a buy from session to PENDING: method, then the missing wallet address', async () => {
    const session = await browser.sessions.create({ user_locale: 'en' });
    expect(session.environment).toBe('SANDBOX');
    const created = await browser.transactions.create({ ...order, session_id: session.session_id });
    expect(created.status).toBe('SETTLEMENT_METHOD_REQUIRED');

    const funding = await browser.transactions.setMethod({
      transaction_id: created.transaction_id,
      direction: 'FUNDING',
      method: 'BLOCKCHAIN_TRANSFER',
    });
    expect(funding.direction).toBe('FUNDING');
    const payout = await browser.transactions.setMethod({
      transaction_id: created.transaction_id,
      direction: 'PAYOUT',
      method: 'BLOCKCHAIN_TRANSFER',
    });
    expect(missingInputs(payout)).toEqual([{ name: 'account_key', type: 'WALLET_ADDRESS' }]);
    expect((await browser.transactions.status(created.transaction_id)).status).toBe(
      'SETTLEMENT_PARAMETERS_REQUIRED',
    );

    const supplied = await browser.transactions.setParameters({
      settlement_instruction_id: payout.settlement_instruction_id,
      input_parameters: {
        account_key: {
          type: 'WALLET_ADDRESS',
          value: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
        },
      },
    });
    expect(missingInputs(supplied)).toEqual([]);
    const now = await browser.transactions.status(created.transaction_id);
    expect(hasStatus(now, 'PENDING')).toBe(true);
    expect(now.funding_settlement?.quantity).toMatch(/^\d+(\.\d+)?$/);
  });

  it('takes per-call options: an aborted signal stops a call, the next one goes through', async () => {
    const error = await browser.sessions
      .create({}, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ reason: 'aborted' });
    const session = await browser.sessions.create({}, { timeoutMs: 5_000, retry: false });
    expect(session.session_id).toBeTypeOf('string');
  });

  it('names the refused field in the message, not only in fields', async () => {
    const session = await browser.sessions.create();
    const error = await browser.transactions
      .create({ ...order, side: 'hold' as 'buy', session_id: session.session_id })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(Object.keys((error as ValidationError).fields)).toEqual(['side']);
    expect((error as Error).message).toMatch(/validation failed \(Invalid body: side: \w+/);
  });

  it('creates once per client_ref, however often the create is retried', async () => {
    const session = await browser.sessions.create();
    const clientRef = `ref-${Date.now()}`;
    const first = await browser.transactions.create({
      ...order,
      session_id: session.session_id,
      client_ref: clientRef,
    });
    const again = await browser.transactions.create({
      ...order,
      session_id: session.session_id,
      client_ref: clientRef,
    });
    expect(again.transaction_id).toBe(first.transaction_id);
  });

  it('fulfils a ONE_TO_ONE_ATTEMPTED intent once, and lists the transaction it made', async () => {
    const intent = await backend.intents.create({
      payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'BTC', quantity: '0.002' },
      partner_order_id: `po-${Date.now()}`,
      partner_tags: ['checkout'],
    });
    expect(intent.strategy).toBe('ONE_TO_ONE_ATTEMPTED');
    const session = await browser.sessions.create();
    const take = {
      ...order,
      quantity: '0.002',
      session_id: session.session_id,
      intent_id: intent.id,
    };
    const fulfilled = await browser.transactions.create(take);
    const second = await browser.transactions.create(take).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(ValidationError);
    expect((second as ValidationError).status).toBe(422);

    const listed = [];
    for await (const each of backend.transactions.iterate({ intent_id: intent.id }))
      listed.push(each);
    expect(listed.map((t) => t.transaction_id)).toEqual([fulfilled.transaction_id]);
    expect(listed[0]).toMatchObject({ intent_id: intent.id, partner_tags: ['checkout'] });
  });
});
