/**
 * One user's calls never reach another's: what one user reads holds nothing of another's, and
 * a call the store refuses, among another user's concurrent calls, fails alone while every
 * other call is answered and kept. In memory, through the call pipeline, on a store that
 * refuses any batch holding an order whose client_order_id is marked, as a trigger would; the
 * same refusal by PGlite and PostgreSQL, memory read back equal to the store, is tested in
 * `state/refused-write.test.ts`.
 */
import {
  zCreateCryptoWithdrawalResponse,
  zGetAccountsResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { CallNotStored } from '../state/sequencer.js';
import { type Client, type ParsedResponse, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox, signedNow } from '../testing/memory-sandbox.js';
import { place } from '../testing/trading.js';

const marked = 'refused-by-store-';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox({
    refuses: (changes) =>
      [...changes.orders.values()].some((order) => order.clientOrderId?.startsWith(marked)),
  });
});

const limitBuy = {
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: '0.001',
  price: '100',
};

interface User {
  userId: number;
  tokenId: string;
  tokenSecret: string;
  call: Client;
}

async function jpy(user: User) {
  const accounts = valid(zGetAccountsResponse, await user.call('GET', '/accounts'));
  return accounts.fiat_accounts.find((account) => account.currency === 'JPY');
}

/**
 * An order carrying a client_order_id, signed without a nonce as the conventions allow, so
 * that many are decided side by side from one token and stored in one batch.
 */
function placeWithoutNonce(user: User, body: Record<string, unknown>): Promise<ParsedResponse> {
  return sandbox.request('POST', '/orders', {
    headers: { 'x-service-auth': signedNow(user, { path: '/orders', withoutNonce: true }) },
    body,
  });
}

/** The ids a list answer holds, whatever its envelope. */
function idsIn(answer: ParsedResponse): unknown[] {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const body = answer.body as { models?: { id: unknown }[] } | { id: unknown }[];
  return (Array.isArray(body) ? body : (body.models ?? [])).map((row) => row.id);
}

describe("one user's calls and another's", () => {
  it("show a user nothing of another's orders, fills, ledger, positions or withdrawals", async () => {
    const owner = sandbox.addUser();
    const other = sandbox.addUser();
    const stranger = sandbox.addUser();
    const product = sandbox.addProduct({ base: 'BTC', quote: 'JPY', margin: true });
    const resting = await place(other.call, { product_id: product, side: 'sell', price: '1000' });
    const order = await place(owner.call, {
      product_id: product,
      price: '1000',
      trading_type: 'margin',
      leverage_level: 2,
      funding_currency: 'JPY',
    });
    expect(order.status).toBe('filled');
    const withdrawal = valid(
      zCreateCryptoWithdrawalResponse,
      await owner.call('POST', '/crypto_withdrawals', {
        body: {
          crypto_withdrawal: {
            currency: 'BTC',
            address: 'bc1qsandboxaddress00000000000000000000',
            amount: '1',
          },
        },
      }),
    );
    const trades = idsIn(await owner.call('GET', '/trades'));
    expect(trades).toHaveLength(1);
    const fills = idsIn(await owner.call('GET', `/executions/me?product_id=${product}`));
    expect(fills).toHaveLength(1);

    const own = {
      orders: idsIn(await stranger.call('GET', '/orders?limit=1000')),
      fills: idsIn(await stranger.call('GET', `/executions/me?product_id=${product}`)),
      trades: idsIn(await stranger.call('GET', '/trades')),
      withdrawals: idsIn(await stranger.call('GET', '/crypto_withdrawals')),
      ledger: idsIn(await stranger.call('GET', '/balance_history?currency=JPY&limit=1000')),
    };
    expect(own.orders).not.toContain(order.id);
    expect(own.orders).not.toContain(resting.id);
    expect(own.fills).toEqual([]);
    expect(own.trades).toEqual([]);
    expect(own.withdrawals).toEqual([]);
    const ownerLedger = idsIn(await owner.call('GET', '/balance_history?currency=JPY&limit=1000'));
    expect(own.ledger.filter((id) => ownerLedger.includes(id))).toEqual([]);

    expect((await stranger.call('GET', `/orders/${order.id}`)).status).toBe(404);
    expect((await stranger.call('PUT', `/orders/${order.id}/cancel`)).status).toBe(404);
    expect((await stranger.call('GET', `/orders/${order.id}/trades`)).status).toBe(404);
    expect((await stranger.call('PUT', `/trades/${trades[0]}/close`)).status).toBe(404);
    const cancel = await stranger.call('PUT', `/crypto_withdrawal/${withdrawal.id}/cancel`);
    expect(cancel.status).toBe(404);
  });
});

describe('a call the store refuses', () => {
  it('fails alone: 0 errors for another user placing and cancelling meanwhile', async () => {
    const victim = sandbox.addUser();
    const other = sandbox.addUser();
    const before = await jpy(victim);
    const rounds = 5;
    const perRound = 30;
    const otherAnswers: ParsedResponse[] = [];
    for (let round = 0; round < rounds; round++) {
      const load = Array.from({ length: perRound }, (_, index) =>
        placeWithoutNonce(other, { ...limitBuy, client_order_id: `load-${round}-${index}` }),
      );
      const bad = placeWithoutNonce(victim, { ...limitBuy, client_order_id: `${marked}${round}` });
      const cancel =
        round === 0
          ? placeWithoutNonce(other, { ...limitBuy, client_order_id: 'load-first' })
          : other.call('PUT', `/orders/client:load-${round - 1}-0/cancel`);
      const [refused, ...answers] = await Promise.allSettled([bad, ...load, cancel]);
      expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(CallNotStored);
      for (const answer of answers) {
        if (answer.status === 'rejected') throw answer.reason;
        otherAnswers.push(answer.value);
      }
    }

    const failures = otherAnswers.filter((answer) => answer.status !== 200);
    expect(failures.map((answer) => [answer.status, answer.body])).toEqual([]);
    expect(otherAnswers).toHaveLength(rounds * (perRound + 1));

    // Nothing of the refused calls is shown, and the victim's funds are as they were.
    for (let round = 0; round < rounds; round++) {
      const order = await victim.call('GET', `/orders/client:${marked}${round}`);
      expect(order.status).toBe(404);
    }
    expect(await jpy(victim)).toEqual(before);
    expect(idsIn(await other.call('GET', '/orders?limit=1000'))).toHaveLength(
      rounds * perRound + 1,
    );
  });

  it('refuses too a call decided on its rows, and keeps the others', async () => {
    const product = sandbox.addProduct({ base: 'BTC', quote: 'JPY' });
    const victim = sandbox.addUser();
    const seller = sandbox.addUser();
    const before = await jpy(victim);
    const sold: number[] = [];
    for (let round = 0; round < 5; round++) {
      const cross = { order_type: 'limit', product_id: product, quantity: '0.001', price: '1000' };
      const [buy, sell] = await Promise.allSettled([
        placeWithoutNonce(victim, { ...cross, side: 'buy', client_order_id: `${marked}x${round}` }),
        placeWithoutNonce(seller, { ...cross, side: 'sell', client_order_id: `cross-${round}` }),
      ]);
      expect(buy?.status === 'rejected' && buy.reason).toBeInstanceOf(CallNotStored);
      // A sell that met the refused buy is refused with it, else it rests.
      if (sell?.status === 'fulfilled' && sell.value.status === 200) sold.push(round);
    }
    expect(await jpy(victim)).toEqual(before);
    const listed = await seller.call('GET', `/orders?product_id=${product}`);
    const models = (listed.body as { models: { status: string }[] }).models;
    expect(models.every((order) => order.status === 'live')).toBe(true);
    expect(models).toHaveLength(sold.length);
  });
});
