import {
  zCloseLoanBidResponse,
  zCreateLoanBidResponse,
  zGetLoanBookResponse,
  zGetReservedBalanceDetailsResponse,
  zListLoanBidsResponse,
  zListLoansResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { balances } from '../testing/trading.js';

let sandbox: MemorySandbox;
beforeAll(async () => {
  sandbox = await memorySandbox();
});

const bid = (call: Client, fields: Record<string, unknown> = {}) =>
  call('POST', '/loan_bids', {
    body: { loan_bid: { rate: '0.00020', quantity: '1.25', currency: 'BTC', ...fields } },
  });

describe('loan bids', () => {
  it('hold their quantity while live, shown as a loan_bid holder, and release it on close', async () => {
    const { call, userId } = sandbox.addUser();
    const created = valid(zCreateLoanBidResponse, await bid(call));
    expect(created).toMatchObject({
      bidask_type: 'limit',
      quantity: '1.25',
      currency: 'BTC',
      side: 'bid',
      filled_quantity: '0',
      status: 'live',
      rate: '0.0002',
      user_id: userId,
    });
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '1.25' });
    const details = valid(
      zGetReservedBalanceDetailsResponse,
      await call('GET', '/accounts/BTC/reserved_balance_details'),
    );
    expect(details.details).toEqual([{ holder_type: 'loan_bid', id: created.id, amount: '1.25' }]);

    const closed = valid(
      zCloseLoanBidResponse,
      await call('PUT', `/loan_bids/${created.id}/close`),
    );
    expect(closed.status).toBe('closed');
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
    const again = await call('PUT', `/loan_bids/${created.id}/close`);
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ errors: { status: ['closed'] } });
  });

  it('are listed per currency, newest first, and only the caller sees theirs', async () => {
    const { call } = sandbox.addUser();
    const first = valid(zCreateLoanBidResponse, await bid(call));
    const second = valid(zCreateLoanBidResponse, await bid(call, { quantity: '0.5' }));
    await bid(call, { currency: 'ETH' });
    const listed = valid(zListLoanBidsResponse, await call('GET', '/loan_bids?currency=BTC'));
    expect(listed.models.map((row) => row.id)).toEqual([second.id, first.id]);
    const paged = valid(
      zListLoanBidsResponse,
      await call('GET', '/loan_bids?currency=BTC&limit=1&page=2'),
    );
    expect(paged).toMatchObject({ current_page: 2, total_pages: 2 });
    expect(paged.models.map((row) => row.id)).toEqual([first.id]);

    const other = sandbox.addUser();
    const theirs = valid(zListLoanBidsResponse, await other.call('GET', '/loan_bids?currency=BTC'));
    expect(theirs.models).toEqual([]);
    expect((await other.call('PUT', `/loan_bids/${first.id}/close`)).status).toBe(404);
  });

  it('refuse a bad field with 422 naming it, and a bid beyond the free balance', async () => {
    const { call } = sandbox.addUser();
    const refused = async (fields: Record<string, unknown>) => {
      const answer = await bid(call, fields);
      expect(answer.status).toBe(422);
      return answer.body;
    };
    expect(await refused({ rate: '0' })).toEqual({ errors: { rate: ['must_be_positive'] } });
    expect(await refused({ rate: '0.0700001' })).toEqual({
      errors: { rate: ['must_be_at_most_0.07'] },
    });
    expect(await refused({ rate: `1${'0'.repeat(59)}` })).toEqual({
      errors: { rate: ['too_long'] },
    });
    expect(await refused({ rate: `0.${'0'.repeat(40)}1` })).toEqual({
      errors: { rate: ['too_long'] },
    });
    expect(await refused({ quantity: `1${'0'.repeat(40)}` })).toEqual({
      errors: { quantity: ['too_long'] },
    });
    expect(await refused({ quantity: '-1' })).toMatchObject({
      errors: { quantity: [expect.any(String)] },
    });
    expect(await refused({ quantity: '0.000000001' })).toEqual({
      errors: { quantity: ['too_many_decimals'] },
    });
    expect(await refused({ currency: 'JPY' })).toEqual({
      errors: { currency: ['not_a_crypto_currency'] },
    });
    expect(await refused({ currency: 'XYZ' })).toEqual({ errors: { currency: ['not_found'] } });
    expect(await refused({ quantity: '10.5' })).toMatchObject({
      errors: { user: expect.any(Array) },
    });
    expect(await refused({ rate: '1e-4' })).toEqual({
      errors: { 'loan_bid.rate': ['must_be_decimal'] },
    });
    expect(await refused({ extra: '1' })).toMatchObject({ errors: expect.any(Object) });
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
  });

  it('show in the loan book while live, added to the demo ladder at their rates', async () => {
    const own = await memorySandbox();
    const book = async () =>
      valid(zGetLoanBookResponse, await own.addUser().call('GET', '/ir_ladders/BTC')).bids;
    const demo = await book();
    const { call } = own.addUser();
    valid(zCreateLoanBidResponse, await bid(call, { rate: '0.0002', quantity: '1.383' }));
    const between = valid(
      zCreateLoanBidResponse,
      await bid(call, { rate: '0.0003', quantity: '2' }),
    );
    expect(await book()).toEqual([['0.00020', '25'], ['0.0003', '2'], ...demo.slice(1)]);
    await call('PUT', `/loan_bids/${between.id}/close`);
    expect(await book()).toEqual([['0.00020', '25'], ...demo.slice(1)]);
  });
});

describe('loans', () => {
  it('are an empty page until a margin position borrows, and need a currency', async () => {
    const { call } = sandbox.addUser();
    await bid(call);
    const loans = valid(zListLoansResponse, await call('GET', '/loans?currency=BTC'));
    expect(loans).toEqual({ models: [], current_page: 1, total_pages: 0 });
    expect((await call('GET', '/loans')).status).toBe(400);
  });
});
