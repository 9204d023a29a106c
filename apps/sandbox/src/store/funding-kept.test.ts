import {
  zCreateCryptoWithdrawalResponse,
  zListCryptoWithdrawalsResponse,
  zListFiatWithdrawalsResponse,
  zListFundInfosResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditDeposit } from '../exchange/deposits.js';
import type { RunningSandbox } from '../server.js';
import { type Client, newUser, startTestSandbox, valid } from '../test-support.js';
import { balances } from '../testing/trading.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ testControl: true });
});
afterAll(() => sandbox.close());

const withdrawBtc = async (call: Client, amount = '1') =>
  valid(
    zCreateCryptoWithdrawalResponse,
    await call('POST', '/crypto_withdrawals', {
      body: {
        crypto_withdrawal: {
          currency: 'BTC',
          address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
          amount,
        },
      },
    }),
  );

/** What test control answers when asked to move withdrawal `id` to `state`. */
async function moveByControl(id: number, state: string) {
  const response = await fetch(`${sandbox.exchangeUrl}/test/withdrawals/${id}/state`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ state }),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const exchange = () => sandbox.sequencer.state.exchange;

describe('a withdrawal in the store', () => {
  it('stays in memory until it ends, then the store lists it and refuses its moves', async () => {
    const { call } = await newUser(sandbox);
    const other = await newUser(sandbox);
    // The newest have ended, so the next id is not one past any memory holds.
    const [pending, ended, declined] = [
      await withdrawBtc(call, '3'),
      await withdrawBtc(call, '1'),
      await withdrawBtc(call, '2'),
    ];
    expect((await call('PUT', `/crypto_withdrawal/${ended.id}/cancel`)).status).toBe(200);
    for (const state of ['processing', 'declined']) {
      expect((await moveByControl(declined.id, state)).status).toBe(200);
    }
    await sandbox.sequencer.settled();
    const held = () =>
      [ended.id, declined.id, pending.id].map((id) => exchange().withdrawals.has(id));
    // Only the pending one holds anything still, and moves on.
    expect(held()).toEqual([false, false, true]);
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '3.0005' });

    const listed = valid(zListCryptoWithdrawalsResponse, await call('GET', '/crypto_withdrawals'));
    expect(listed.models.map(({ id, state }) => ({ id, state }))).toEqual([
      { id: declined.id, state: 'declined' },
      { id: ended.id, state: 'cancelled' },
      { id: pending.id, state: 'pending' },
    ]);
    const secondPage = await call('GET', '/crypto_withdrawals?limit=1&page=2&state=declined');
    expect(valid(zListCryptoWithdrawalsResponse, secondPage)).toEqual({
      models: [],
      current_page: 2,
      total_pages: 1,
    });
    const fiat = valid(zListFiatWithdrawalsResponse, await call('GET', '/withdrawals'));
    expect(fiat.models).toEqual([]);

    // Refused as its state, by its owner and by test control alike; another's is not found.
    expect(await call('PUT', `/crypto_withdrawal/${ended.id}/cancel`)).toMatchObject({
      status: 422,
      body: { errors: { state: ['cancelled'] } },
    });
    expect(await moveByControl(declined.id, 'processed')).toEqual({
      status: 422,
      body: { errors: { state: ['declined'] } },
    });
    expect((await other.call('PUT', `/crypto_withdrawal/${ended.id}/cancel`)).status).toBe(404);
    expect((await call('PUT', `/withdrawals/${ended.id}/cancel`)).status).toBe(404);
    expect((await moveByControl(declined.id + 1000, 'processing')).status).toBe(404);

    // A start reads only the pending one, and hands out ids after the ended ones.
    await sandbox.sequencer.reload();
    expect(held()).toEqual([false, false, true]);
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '3.0005' });
    const after = await withdrawBtc(call, '0.5');
    expect(after.id).toBeGreaterThan(declined.id);
    const again = valid(zListCryptoWithdrawalsResponse, await call('GET', '/crypto_withdrawals'));
    expect(again.models.map(({ id }) => id)).toEqual([
      after.id,
      ...listed.models.map(({ id }) => id),
    ]);
  });
});

describe('a deposit in the store', () => {
  it('is let go of once stored, listed from the store, and its id never handed out again', async () => {
    const { userId, call } = await newUser(sandbox);
    const credit = (currency: string, amount: string) =>
      sandbox.sequencer.run((journal) =>
        creditDeposit(journal, { userId, currency, amount }, Date.now()),
      );
    const first = await credit('BTC', '1.5');
    const second = await credit('ETH', '2');
    await sandbox.sequencer.settled();
    expect(exchange().deposits.has(first.id)).toBe(false);
    expect(exchange().depositsOfUser(userId)).toEqual([]);

    const all = valid(zListFundInfosResponse, await call('GET', '/fund_infos'));
    expect(all.models.map(({ id, currency, amount }) => ({ id, currency, amount }))).toEqual([
      { id: second.id, currency: 'ETH', amount: '2' },
      { id: first.id, currency: 'BTC', amount: '1.5' },
    ]);
    const btc = valid(
      zListFundInfosResponse,
      await call('GET', '/fund_infos?currency=BTC&limit=1'),
    );
    expect(btc).toMatchObject({ models: [{ id: first.id }], current_page: 1, total_pages: 1 });

    await sandbox.sequencer.reload();
    expect(exchange().deposits.size).toBe(0);
    const third = await credit('BTC', '0.25');
    expect(third.id).toBeGreaterThan(second.id);
    expect(await balances(call, 'BTC')).toMatchObject({ balance: '11.75' });
  });
});
