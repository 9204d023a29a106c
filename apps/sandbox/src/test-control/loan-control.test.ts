import {
  zCreateLoanBidResponse,
  zListLoanBidsResponse,
  zListLoansResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { describe, expect, it } from 'vitest';
import { houseUserId } from '../exchange/ledger.js';
import { valid } from '../test-support.js';
import { memoryApp } from '../testing/memory-app.js';
import { balances } from '../testing/trading.js';

/** A user with a live bid of 1 BTC, and the test control of loans over the sandbox's edge. */
async function lending() {
  const { sandbox, app } = await memoryApp({ testControl: true });
  const lender = sandbox.addUser();
  const bid = valid(
    zCreateLoanBidResponse,
    await lender.call('POST', '/loan_bids', {
      body: { loan_bid: { currency: 'BTC', rate: '0.0002', quantity: '1' } },
    }),
  );
  const control = async (path: string, body: Record<string, unknown>) => {
    const answer = await app.inject({ method: 'POST', url: path, payload: body });
    return { status: answer.statusCode, body: answer.json() as unknown };
  };
  const loans = async () =>
    valid(zListLoansResponse, await lender.call('GET', '/loans?currency=BTC')).models;
  const bidNow = async () =>
    valid(zListLoanBidsResponse, await lender.call('GET', '/loan_bids?currency=BTC')).models[0];
  return { lender, bid, control, loans, bidNow };
}

describe('test control of loans', () => {
  it('lends part of a live bid to the house, and repays it to the bid', async () => {
    const { lender, bid, control, loans, bidNow } = await lending();
    const borrowed = await control(`/test/loan_bids/${bid.id}/borrow`, { quantity: '0.4' });
    expect(borrowed).toMatchObject({ status: 200, body: { loan_bid_id: bid.id, quantity: '0.4' } });
    const [loan] = await loans();
    expect(loan).toMatchObject({
      quantity: '0.4',
      lender_id: lender.userId,
      borrower_id: houseUserId,
      status: 'open',
      fund_reloaned: true,
    });
    expect(await bidNow()).toMatchObject({ quantity: '1', filled_quantity: '0.4' });
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '9.6', reserved: '0.6' });

    expect(await control(`/test/loans/${loan?.id}/repay`, {})).toMatchObject({ status: 200 });
    expect((await loans())[0]?.status).toBe('closed');
    expect(await bidNow()).toMatchObject({ quantity: '1', filled_quantity: '0' });
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '10', reserved: '1' });
  });

  it('refuses what a bid cannot lend or a loan it did not make, naming the field', async () => {
    const { bid, control, loans } = await lending();
    const borrow = (id: number, quantity: unknown) =>
      control(`/test/loan_bids/${id}/borrow`, { quantity });
    for (const quantity of ['0', '-1', '1e3', 0.1]) {
      expect(await borrow(bid.id, quantity)).toEqual({
        status: 422,
        body: { errors: { quantity: ['must_be_a_positive_decimal_string'] } },
      });
    }
    expect(await borrow(bid.id, '1.5')).toEqual({
      status: 422,
      body: { errors: { quantity: ['more_than_the_bid_offers'] } },
    });
    // BTC has 8 decimal places: a loan of less than one unit of the last is none.
    expect(await borrow(bid.id, '0.000000001')).toEqual({
      status: 422,
      body: { errors: { quantity: ['too_many_decimals'] } },
    });
    expect((await borrow(999_999, '0.1')).status).toBe(404);
    expect((await control('/test/loans/999999/repay', {})).status).toBe(404);
    await borrow(bid.id, '1');
    const [loan] = await loans();
    await control(`/test/loans/${loan?.id}/repay`, {});
    expect(await control(`/test/loans/${loan?.id}/repay`, {})).toEqual({
      status: 422,
      body: { errors: { loan_id: ['not_open:closed'] } },
    });
    expect(await loans()).toHaveLength(1);
  });
});
