/**
 * `GET /loans` reads the caller's loans alone, kept by lender and by borrower as loans are
 * added and undone; `store/positions-kept.test.ts` holds them read back from the store.
 */
import { zListLoansResponse } from '@exchange-kit/contract/exchange/schemas';
import { describe, expect, it, vi } from 'vitest';
import type { Loan } from '../state/records.js';
import { CallNotStored } from '../state/sequencer.js';
import { type Client, valid } from '../test-support.js';
import { memorySandbox } from '../testing/memory-sandbox.js';
import { freshProduct, getOrder, place } from '../testing/trading.js';

const loans = async (call: Client) =>
  valid(zListLoansResponse, await call('GET', '/loans?currency=BTC')).models.map((loan) => ({
    lender: loan.lender_id,
    borrower: loan.borrower_id,
    quantity: loan.quantity,
    status: loan.status,
  }));

describe('GET /loans', () => {
  it('lists the loans the caller lent or borrowed, open and closed, and none undone', async () => {
    // The store refuses every batch holding a loan to this borrower, so its call is undone.
    let refusedBorrower = Number.NaN;
    const sandbox = await memorySandbox({
      refuses: (changes) =>
        [...changes.records.values()].some(
          ({ kind, row }) => kind === 'loan' && (row as Loan).borrowerId === refusedBorrower,
        ),
    });
    const product_id = await freshProduct(sandbox, { margin: true });
    const [lender, borrower, refused, seller, buyer] = [1, 2, 3, 4, 5].map(() => sandbox.addUser());
    if (!lender || !borrower || !refused || !seller || !buyer) throw new Error('five users');
    refusedBorrower = refused.userId;
    const bid = { loan_bid: { currency: 'BTC', rate: '0.0002', quantity: '1' } };
    expect((await lender.call('POST', '/loan_bids', { body: bid })).status).toBe(200);
    const margin = {
      order_type: 'limit',
      side: 'buy',
      product_id,
      price: '100',
      quantity: '1',
      trading_type: 'margin',
      leverage_level: 2,
      funding_currency: 'BTC',
    };

    // Each long borrows 0.5 BTC of its notional from the bid; the second one's call is undone.
    await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '2' });
    const order = await place(borrower.call, margin);
    await expect(refused.call('POST', '/orders', { body: margin })).rejects.toBeInstanceOf(
      CallNotStored,
    );
    const lent = { lender: lender.userId, borrower: borrower.userId, quantity: '0.5' };
    expect(await loans(lender.call)).toEqual([{ ...lent, status: 'open' }]);
    expect(await loans(borrower.call)).toEqual([{ ...lent, status: 'open' }]);
    expect(await loans(refused.call)).toEqual([]);
    expect(await loans(seller.call)).toEqual([]);

    // What the undone long would have bought still rests: the buyer takes it, then the close.
    await place(buyer.call, { product_id, price: '100', quantity: '2' });
    const tradeId = (await getOrder(borrower.call, order.id)).trade_id;
    const closed = await borrower.call('PUT', `/trades/${tradeId}/close`, { body: {} });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    expect(await loans(lender.call)).toEqual([{ ...lent, status: 'closed' }]);
    expect(await loans(borrower.call)).toEqual([{ ...lent, status: 'closed' }]);
  });

  it('reads none of the loans of others', async () => {
    const sandbox = await memorySandbox();
    const [lender, other] = [sandbox.addUser(), sandbox.addUser()];
    const bid = { loan_bid: { currency: 'BTC', rate: '0.0002', quantity: '1' } };
    expect((await lender.call('POST', '/loan_bids', { body: bid })).status).toBe(200);
    const all = sandbox.sequencer.state.exchange.loans;
    const walks = [
      vi.spyOn(all, 'values'),
      vi.spyOn(all, 'entries'),
      vi.spyOn(all, 'forEach'),
      vi.spyOn(all, Symbol.iterator),
    ];
    expect(await loans(other.call)).toEqual([]);
    expect(walks.map((walk) => walk.mock.calls.length)).toEqual([0, 0, 0, 0]);
  });
});
