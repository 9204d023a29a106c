import {
  zIntentToTradeResponse,
  zSetSettlementMethodResponse,
  zSetSettlementParametersResponse,
  zTransactionStatusResponse,
} from '@exchange-kit/contract/partner/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  btcPurchase,
  call,
  newSession,
  parsed,
  partnerWalletSettlements,
  refusal,
  type SeededPartner,
  storeWithSession,
  T0,
  type TestStore,
} from '../testing/partner-calls.js';

const btcAddress = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const unknownId = '00000000-0000-4000-8000-000000000000';

let db: TestStore;
let sessionId: string;
let partner: SeededPartner;

beforeAll(async () => {
  ({ db, sessionId, partner } = await storeWithSession());
}, 60_000);
afterAll(() => db.close());

async function newTransaction(extra: Record<string, unknown> = {}) {
  const reply = await call(db, 'intentToTrade', { body: btcPurchase(sessionId, extra) });
  return parsed(zIntentToTradeResponse, reply).payload;
}

const setMethod = (body: Record<string, unknown>, now = T0 + 5_000) =>
  call(db, 'setSettlementMethod', { body, now });
const setParameters = (body: Record<string, unknown>) =>
  call(db, 'setSettlementParameters', { body, now: T0 + 9_000 });
const status = async (transaction_id: string) =>
  parsed(
    zTransactionStatusResponse,
    await call(db, 'getTransactionStatus', { path: { transaction_id } }),
  ).payload;

describe('settlement method and parameters', () => {
  it('moves a SETTLEMENT_METHOD_REQUIRED transaction through its methods and parameters to PENDING', async () => {
    const { transaction_id } = await newTransaction();

    const funding = await setMethod({
      transaction_id,
      direction: 'FUNDING',
      method: 'BLOCKCHAIN_TRANSFER',
    });
    expect(funding.status).toBe(202);
    const fundingBody = parsed(zSetSettlementMethodResponse, funding);
    expect(fundingBody.payload).toMatchObject({
      transaction_id,
      direction: 'FUNDING',
      currency: 'USDC',
      quantity: '1012.5',
      status: 'WAITING_USER',
      expires: { unix_ms: T0 + 25_000, ttl_ms: 20_000 },
      setup_parameters: { account_key: { type: 'WALLET_ADDRESS', label: 'Deposit address' } },
    });
    expect(fundingBody.message).toMatch(/deposit address/);
    expect((await status(transaction_id)).status).toBe('SETTLEMENT_METHOD_REQUIRED');

    const payout = parsed(
      zSetSettlementMethodResponse,
      await setMethod({ transaction_id, direction: 'PAYOUT', method: 'BLOCKCHAIN_TRANSFER' }),
    );
    expect(payout.payload).toMatchObject({
      status: 'PARAMETERS_REQUIRED',
      required_input_parameters: { account_key: { type: 'WALLET_ADDRESS', required: true } },
    });
    expect(payout.message).toMatch(/account_key/);
    expect((await status(transaction_id)).status).toBe('SETTLEMENT_PARAMETERS_REQUIRED');

    const supplied = parsed(
      zSetSettlementParametersResponse,
      await setParameters({
        settlement_instruction_id: payout.payload.settlement_instruction_id,
        input_parameters: { account_key: { type: 'WALLET_ADDRESS', value: btcAddress } },
      }),
    );
    expect(supplied.payload).toMatchObject({
      settlement_instruction_id: payout.payload.settlement_instruction_id,
      status: 'NOT_STARTED',
      received_input: { account_key: { type: 'WALLET_ADDRESS', value: btcAddress } },
    });
    const settled = await status(transaction_id);
    expect(settled.status).toBe('PENDING');
    expect(settled.funding_settlement?.status).toBe('WAITING_USER');
    expect(settled.payout_settlement?.expires).toBeUndefined();
  });

  it('supplying the signed transaction of a delegated broadcast makes the transaction PENDING', async () => {
    const created = await newTransaction({
      funding_settlement: { method: 'BLOCKCHAIN_DELEGATED_BROADCAST' },
      payout_settlement: { method: 'SERVICE_PARTNER_WALLET' },
    });
    expect(created.status).toBe('SETTLEMENT_PARAMETERS_REQUIRED');
    const reply = await setParameters({
      settlement_instruction_id: created.funding_settlement?.settlement_instruction_id,
      input_parameters: { transaction_key: { type: 'SIGNED_RAW_TRANSACTION', value: '0x02f8' } },
    });
    expect(reply.status).toBe(202);
    const { payload } = parsed(zSetSettlementParametersResponse, reply);
    expect(payload.status).toBe('PENDING');
    expect(payload.expires).toBeUndefined();
    expect((await status(created.transaction_id)).status).toBe('PENDING');
  });

  it('replacing a method keeps the instruction id', async () => {
    const { transaction_id } = await newTransaction();
    const first = parsed(
      zSetSettlementMethodResponse,
      await setMethod({ transaction_id, direction: 'PAYOUT', method: 'BLOCKCHAIN_TRANSFER' }),
    );
    const second = parsed(
      zSetSettlementMethodResponse,
      await setMethod({ transaction_id, direction: 'PAYOUT', method: 'SERVICE_PARTNER_WALLET' }),
    );
    expect(second.payload.settlement_instruction_id).toBe(first.payload.settlement_instruction_id);
    expect(second.payload).toMatchObject({
      method: 'SERVICE_PARTNER_WALLET',
      required_input_parameters: {},
      status: 'NOT_STARTED',
    });
  });

  it('answers unknown ids with 404 naming the field', async () => {
    const method = await refusal(
      setMethod({ transaction_id: unknownId, direction: 'FUNDING', method: 'BLOCKCHAIN_TRANSFER' }),
    );
    expect([method.status, method.errors]).toEqual([404, { transaction_id: ['not_found'] }]);
    const parameters = await refusal(
      setParameters({ settlement_instruction_id: unknownId, input_parameters: {} }),
    );
    expect([parameters.status, parameters.errors]).toEqual([
      404,
      { settlement_instruction_id: ['not_found'] },
    ]);
    for (const [transaction_id, reason] of [
      [unknownId, 'not_found'],
      ['not-a-uuid', 'must_be_uuid'],
    ] as const) {
      const error = await refusal(call(db, 'getTransactionStatus', { path: { transaction_id } }));
      expect([error.status, error.errors]).toEqual([404, { transaction_id: [reason] }]);
    }
  });

  it("hides another session's transaction from a session token", async () => {
    const { transaction_id } = await newTransaction();
    const other = await newSession(db, partner.publicApiKey);
    const caller = { kind: 'session', sessionId: other } as const;
    const error = await refusal(
      call(db, 'getTransactionStatus', { path: { transaction_id }, caller }),
    );
    expect(error.status).toBe(404);
    const own = await call(db, 'getTransactionStatus', {
      path: { transaction_id },
      caller: { kind: 'session', sessionId },
    });
    expect(own.status).toBe(200);
  });

  it('refuses methods a direction cannot use and parameters of the wrong type (422)', async () => {
    const { transaction_id } = await newTransaction();
    const broadcast = await refusal(
      setMethod({ transaction_id, direction: 'PAYOUT', method: 'BLOCKCHAIN_DELEGATED_BROADCAST' }),
    );
    expect([broadcast.status, broadcast.errors]).toEqual([
      422,
      { method: ['not_allowed_for_payout'] },
    ]);
    const payout = parsed(
      zSetSettlementMethodResponse,
      await setMethod({ transaction_id, direction: 'PAYOUT', method: 'BLOCKCHAIN_TRANSFER' }),
    );
    const wrongType = await refusal(
      setParameters({
        settlement_instruction_id: payout.payload.settlement_instruction_id,
        input_parameters: { account_key: { type: 'SIGNED_RAW_TRANSACTION', value: 'x' } },
      }),
    );
    expect([wrongType.status, wrongType.errors]).toEqual([
      422,
      { 'input_parameters.account_key': ['wrong_type'] },
    ]);
    expect((await status(transaction_id)).payout_settlement?.received_input).toEqual({});
  });

  it('refuses to change the settlement of a PENDING transaction (422)', async () => {
    const created = await newTransaction(partnerWalletSettlements);
    expect(created.status).toBe('PENDING');
    const error = await refusal(
      setMethod({
        transaction_id: created.transaction_id,
        direction: 'PAYOUT',
        method: 'BLOCKCHAIN_TRANSFER',
      }),
    );
    expect([error.status, error.errors]).toEqual([422, { transaction_id: ['not_changeable'] }]);
    expect(await status(created.transaction_id)).toEqual(created);
  });

  it('refuses parameters once the instructions expired (422 expired), and quotes afresh when a method is set again', async () => {
    const { transaction_id } = await newTransaction();
    await setMethod({ transaction_id, direction: 'FUNDING', method: 'BLOCKCHAIN_TRANSFER' });
    const payout = parsed(
      zSetSettlementMethodResponse,
      await setMethod({ transaction_id, direction: 'PAYOUT', method: 'BLOCKCHAIN_TRANSFER' }),
    ).payload;
    expect(payout.expires?.unix_ms).toBe(T0 + 25_000);
    const wallet = { account_key: { type: 'WALLET_ADDRESS', value: btcAddress } };
    const late = (now: number) =>
      call(db, 'setSettlementParameters', {
        body: {
          settlement_instruction_id: payout.settlement_instruction_id,
          input_parameters: wallet,
        },
        now,
      });

    const error = await refusal(late(T0 + 25_000));
    expect([error.status, error.errors]).toEqual([422, { settlement_instruction_id: ['expired'] }]);
    expect((await status(transaction_id)).status).toBe('SETTLEMENT_PARAMETERS_REQUIRED');

    // Setting a method again prices both instructions from a new quote.
    const requoted = await setMethod(
      { transaction_id, direction: 'PAYOUT', method: 'BLOCKCHAIN_TRANSFER' },
      T0 + 30_000,
    );
    expect(parsed(zSetSettlementMethodResponse, requoted).payload.settlement_instruction_id).toBe(
      payout.settlement_instruction_id,
    );
    const fresh = await status(transaction_id);
    expect(fresh.funding_settlement?.expires?.unix_ms).toBe(T0 + 50_000);
    expect(fresh.payout_settlement?.expires?.unix_ms).toBe(T0 + 50_000);
    const accepted = await late(T0 + 31_000);
    expect(accepted.status).toBe(202);
    expect((await status(transaction_id)).status).toBe('PENDING');
  });
});
