import {
  zCancelOrderResponse,
  zCloseTradeResponse,
  zCreateLoanBidResponse,
  zGetLoanBookResponse,
  zListBalanceHistoryResponse,
  zListLoanBidsResponse,
  zListLoansResponse,
  zListTradesResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { describe, expect, it } from 'vitest';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { balances, freshProduct, getOrder, place } from '../testing/trading.js';
import { chargeDueInterest, dayMs } from './borrowing.js';
import { houseUserId } from './ledger.js';

/** A memory sandbox on a clock the test moves, as `POST /test/clock` moves the sandbox's. */
async function clockedSandbox() {
  let clock = 1_716_000_000_000;
  const sandbox = await memorySandbox({ now: () => clock });
  const advance = (ms: number) => {
    clock += ms;
    return sandbox.sequencer.run((journal) => chargeDueInterest(journal, clock));
  };
  return { sandbox, advance };
}

const lend = async (call: Client, rate: string, quantity: string) =>
  valid(
    zCreateLoanBidResponse,
    await call('POST', '/loan_bids', { body: { loan_bid: { currency: 'BTC', rate, quantity } } }),
  );

const loans = async (call: Client, currency: string) =>
  valid(zListLoansResponse, await call('GET', `/loans?currency=${currency}`)).models;

const tradeOf = async (call: Client) =>
  valid(zListTradesResponse, await call('GET', '/trades')).models[0];

const entries = async (call: Client, currency: string, action: string) =>
  valid(
    zListBalanceHistoryResponse,
    await call('GET', `/balance_history?currency=${currency}&source_action=${action}`),
  ).map((entry) => ({ amount: entry.amount, type: entry.source_object_type }));

/**
 * A long of 1 BTC at 100, leverage 2, funded in `funding` and filled by a spot sell (of
 * `filled`, all of it unless told); a spot buy of 1 at 100 rests behind it, for the trade to
 * be closed against.
 */
async function openLong(sandbox: MemorySandbox, funding: 'BTC' | 'JPY', filled = '1') {
  const product_id = await freshProduct(sandbox, { margin: true });
  const trader = sandbox.addUser();
  const other = sandbox.addUser();
  const order = await place(trader.call, {
    product_id,
    price: '100',
    quantity: '1',
    trading_type: 'margin',
    leverage_level: 2,
    funding_currency: funding,
  });
  await place(other.call, { product_id, side: 'sell', price: '100', quantity: filled });
  await place(other.call, { product_id, price: '100', quantity: '1' });
  const tradeId = (await getOrder(trader.call, order.id)).trade_id;
  return {
    trader,
    order,
    tradeId,
    close: (body: object) => closeTrade(trader.call, tradeId, body),
  };
}

const closeTrade = async (call: Client, tradeId: unknown, body: object) =>
  valid(zCloseTradeResponse, await call('PUT', `/trades/${tradeId}/close`, { body }));

describe('a margin position borrows', () => {
  it('its notional beyond its margin from the live bids of its funding currency, lowest rate first', async () => {
    const { sandbox } = await clockedSandbox();
    const dear = sandbox.addUser();
    const cheap = sandbox.addUser();
    const dearBid = await lend(dear.call, '0.0004', '0.3');
    const cheapBid = await lend(cheap.call, '0.0002', '0.25');
    const { trader } = await openLong(sandbox, 'BTC');

    // 1 BTC of notional, 0.5 of margin: 0.25 from the cheaper bid, then 0.25 of the dearer.
    expect(await loans(trader.call, 'BTC')).toEqual([
      expect.objectContaining({ quantity: '0.25', rate: '0.0004', lender_id: dear.userId }),
      expect.objectContaining({ quantity: '0.25', rate: '0.0002', lender_id: cheap.userId }),
    ]);
    expect((await loans(cheap.call, 'BTC'))[0]).toMatchObject({
      borrower_id: trader.userId,
      status: 'open',
      currency: 'BTC',
      fund_reloaned: true,
    });
    const bids = valid(zListLoanBidsResponse, await dear.call('GET', '/loan_bids?currency=BTC'));
    expect(bids.models[0]).toMatchObject({ id: dearBid.id, filled_quantity: '0.25' });
    // What a bid lent leaves its owner's balance to the house; what is left it still holds.
    expect(await balances(dear.call, 'BTC')).toEqual({ balance: '9.75', reserved: '0.05' });
    expect(await balances(cheap.call, 'BTC')).toEqual({ balance: '9.75', reserved: '0' });
    expect(await entries(cheap.call, 'BTC', 'loan')).toEqual([{ amount: '-0.25', type: 'Loan' }]);
    const book = valid(zGetLoanBookResponse, await trader.call('GET', '/ir_ladders/BTC')).bids;
    // Added to the demo ladder's levels at those rates: the cheap bid, lent in whole, adds none.
    expect(book.find(([rate]) => rate === '0.00040')).toEqual(['0.00040', '50.69']);
    expect(book.find(([rate]) => rate === '0.00020')).toEqual(['0.00020', '23.617']);
    expect(await tradeOf(trader.call)).toMatchObject({
      daily_interest: '0.00015',
      total_interest: '0',
    });
    expect(cheapBid.status).toBe('live');
  });

  it('from the house when no live bid lends its funding currency', async () => {
    const { sandbox } = await clockedSandbox();
    const { trader } = await openLong(sandbox, 'JPY');
    expect(await loans(trader.call, 'JPY')).toEqual([
      expect.objectContaining({
        quantity: '50',
        rate: '0.0005',
        lender_id: houseUserId,
        borrower_id: trader.userId,
        status: 'open',
        fund_reloaned: false,
      }),
    ]);
    expect(await entries(trader.call, 'JPY', 'loan')).toEqual([]);
    expect((await tradeOf(trader.call))?.daily_interest).toBe('0.025');
  });

  it('and repays in proportion as it closes, all of it once closed, the bid lending it again', async () => {
    const { sandbox } = await clockedSandbox();
    const lender = sandbox.addUser();
    const bid = await lend(lender.call, '0.0002', '2');
    const { trader, close } = await openLong(sandbox, 'BTC');
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '9.5', reserved: '1.5' });

    await close({ closed_quantity: '0.2' });
    expect(await loans(trader.call, 'BTC')).toEqual([
      expect.objectContaining({ quantity: '0.5', status: 'open' }),
    ]);
    expect(await entries(lender.call, 'BTC', 'repay')).toEqual([{ amount: '0.1', type: 'Loan' }]);
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '9.6', reserved: '1.6' });
    expect((await tradeOf(trader.call))?.daily_interest).toBe('0.00008');

    await close({});
    expect((await loans(trader.call, 'BTC'))[0]?.status).toBe('closed');
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '10', reserved: '2' });
    const bids = valid(zListLoanBidsResponse, await lender.call('GET', '/loan_bids?currency=BTC'));
    expect(bids.models[0]).toMatchObject({ id: bid.id, filled_quantity: '0', status: 'live' });
    expect((await tradeOf(trader.call))?.daily_interest).toBe('0');
  });

  it('and what a closed bid lent comes back free', async () => {
    const { sandbox } = await clockedSandbox();
    const lender = sandbox.addUser();
    const bid = await lend(lender.call, '0.0002', '2');
    const { close } = await openLong(sandbox, 'BTC');
    await lender.call('PUT', `/loan_bids/${bid.id}/close`);
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '9.5', reserved: '0' });
    await close({});
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
  });
});

describe("a loan's lender chooses whether it is lent again", () => {
  const choose = (call: Client, loanId: number, fundReloaned: unknown) =>
    call('PUT', `/loans/${loanId}`, { body: { loan: { fund_reloaned: fundReloaned } } });

  it('what is repaid of a loan not lent again leaves the bid, free in the balance', async () => {
    const { sandbox } = await clockedSandbox();
    const lender = sandbox.addUser();
    const bid = await lend(lender.call, '0.0002', '2');
    const { trader, close } = await openLong(sandbox, 'BTC');
    const [loan] = await loans(lender.call, 'BTC');
    if (!loan) throw new Error('the trade borrowed nothing from the bid');

    const misspelled = await lender.call('PUT', `/loans/${loan.id}`, {
      body: { loan: { fund_reloaned: false, fund_reloan: false } },
    });
    expect([misspelled.status, misspelled.body]).toEqual([
      422,
      { errors: { 'loan.fund_reloan': ['unknown_field'] } },
    ]);
    expect((await loans(trader.call, 'BTC'))[0]?.fund_reloaned).toBe(true);
    const chosen = await choose(lender.call, loan.id, false);
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ id: loan.id, status: 'open', fund_reloaned: false });
    expect((await loans(trader.call, 'BTC'))[0]?.fund_reloaned).toBe(false);

    await close({ closed_quantity: '0.2' });
    // 0.1 repaid: the bid offers 1.5 as before, its quantity down by what came back.
    const after = valid(zListLoanBidsResponse, await lender.call('GET', '/loan_bids?currency=BTC'));
    expect(after.models[0]).toMatchObject({ id: bid.id, quantity: '1.9', filled_quantity: '0.4' });
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '9.6', reserved: '1.5' });

    await close({});
    const closed = valid(
      zListLoanBidsResponse,
      await lender.call('GET', '/loan_bids?currency=BTC'),
    );
    expect(closed.models[0]).toMatchObject({
      quantity: '1.5',
      filled_quantity: '0',
      status: 'live',
    });
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '10', reserved: '1.5' });
  });

  it('a bid whose every loan came back to the lender closes', async () => {
    const { sandbox } = await clockedSandbox();
    const lender = sandbox.addUser();
    const bid = await lend(lender.call, '0.0002', '0.5');
    const { close } = await openLong(sandbox, 'BTC');
    const [loan] = await loans(lender.call, 'BTC');
    await choose(lender.call, Number(loan?.id), false);
    await close({});
    const bids = valid(zListLoanBidsResponse, await lender.call('GET', '/loan_bids?currency=BTC'));
    expect(bids.models[0]).toMatchObject({ id: bid.id, quantity: '0', status: 'closed' });
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
  });

  it('the borrower, another user and a bad body are refused, the loan unchanged', async () => {
    const { sandbox } = await clockedSandbox();
    const lender = sandbox.addUser();
    await lend(lender.call, '0.0002', '2');
    const { trader } = await openLong(sandbox, 'BTC');
    const stranger = sandbox.addUser();
    const [loan] = await loans(lender.call, 'BTC');
    const id = Number(loan?.id);

    const borrower = await choose(trader.call, id, false);
    expect(borrower).toMatchObject({
      status: 422,
      body: { errors: { fund_reloaned: ['lender_only'] } },
    });
    expect((await choose(stranger.call, id, false)).status).toBe(404);
    expect((await choose(lender.call, 999_999, false)).status).toBe(404);
    const bad = await choose(lender.call, id, 'no');
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('fund_reloaned');
    expect((await loans(lender.call, 'BTC'))[0]).toMatchObject({ id, fund_reloaned: true });
  });
});

describe('a position that fills again and again', () => {
  it('holds one house loan, grown by each fill, each day charged on what it owed at its end', async () => {
    const { sandbox, advance } = await clockedSandbox();
    const product_id = await freshProduct(sandbox, { margin: true });
    const trader = sandbox.addUser();
    const other = sandbox.addUser();
    const body = { product_id, price: '100', quantity: '1', trading_type: 'margin' };
    await place(trader.call, { ...body, leverage_level: 2, funding_currency: 'JPY' });
    const sells = async (fills: number) => {
      for (let n = 0; n < fills; n++) {
        await place(other.call, { product_id, side: 'sell', price: '100', quantity: '0.05' });
      }
    };
    // Each fill of 0.05 at 100, leverage 2, borrows 2.5 JPY of the house.
    await sells(10);
    await advance(dayMs / 2);
    await sells(6);
    expect(await loans(trader.call, 'JPY')).toEqual([
      expect.objectContaining({ quantity: '40', lender_id: houseUserId, status: 'open' }),
    ]);

    // The first day is charged on the 40 owed at its end, half of it borrowed during it.
    await advance(dayMs * 0.6);
    expect(await entries(trader.call, 'JPY', 'interest')).toEqual([
      { amount: '-0.02', type: 'Loan' },
    ]);
    await sells(4);
    await advance(dayMs);
    expect(await loans(trader.call, 'JPY')).toEqual([
      expect.objectContaining({ quantity: '50', status: 'open' }),
    ]);
    expect(await tradeOf(trader.call)).toMatchObject({
      daily_interest: '0.025',
      total_interest: '0.045',
    });
  });
});

describe('a loan accrues interest', () => {
  it('shown as margin_interest by the order that opened its position, as by the trade', async () => {
    const { sandbox, advance } = await clockedSandbox();
    const { trader, order } = await openLong(sandbox, 'JPY', '0.4');
    await advance(dayMs + 1);
    const cancelled = valid(
      zCancelOrderResponse,
      await trader.call('PUT', `/orders/${order.id}/cancel`),
    );
    // A day of the 20 JPY borrowed (0.4 at 100, leverage 2) at the house's 0.0005.
    expect(await tradeOf(trader.call)).toMatchObject({ total_interest: '0.01' });
    expect(cancelled).toMatchObject({ status: 'cancelled', margin_interest: '0.01' });
  });

  it('once per whole day of the sandbox clock, paid by the borrower to the lender', async () => {
    const { sandbox, advance } = await clockedSandbox();
    const lender = sandbox.addUser();
    await lend(lender.call, '0.0002', '0.5');
    const { trader } = await openLong(sandbox, 'BTC');
    await advance(dayMs - 1);
    expect(await entries(trader.call, 'BTC', 'interest')).toEqual([]);

    await advance(dayMs + 1);
    // Two days of 0.5 at 0.0002.
    expect(await entries(trader.call, 'BTC', 'interest')).toEqual([
      { amount: '-0.0002', type: 'Loan' },
    ]);
    expect(await entries(lender.call, 'BTC', 'interest')).toEqual([
      { amount: '0.0002', type: 'Loan' },
    ]);
    expect(await tradeOf(trader.call)).toMatchObject({
      daily_interest: '0.0001',
      total_interest: '0.0002',
    });
  });

  it('charged lazily when the trade or its loans are read after the clock moved', async () => {
    let clock = 1_716_000_000_000;
    const sandbox = await memorySandbox({ now: () => clock });
    const { trader } = await openLong(sandbox, 'JPY');
    clock += 3 * dayMs;
    expect(await tradeOf(trader.call)).toMatchObject({ total_interest: '0.075' });
    // 3 days of 50 JPY at the house's 0.0005, to the house.
    expect(await entries(trader.call, 'JPY', 'interest')).toEqual([
      { amount: '-0.075', type: 'Loan' },
    ]);
    const house = sandbox.sequencer.state.exchange.entriesByUser.of(houseUserId);
    expect(house.at(-1)).toMatchObject({ sourceAction: 'interest' });
    expect(house.at(-1)?.amount.toFixed()).toBe('0.075');
  });

  it('the house paying the lender what the borrower cannot', async () => {
    const { sandbox, advance } = await clockedSandbox();
    const lender = sandbox.addUser();
    await lend(lender.call, '0.07', '0.5');
    const { trader } = await openLong(sandbox, 'BTC');
    // 9.5 BTC free: 300 days of 0.035 owed at the highest rate, 10.5 BTC, is more than the
    // borrower has.
    await advance(300 * dayMs);
    expect(await entries(trader.call, 'BTC', 'interest')).toEqual([
      { amount: '-9.5', type: 'Loan' },
    ]);
    expect(await balances(trader.call, 'BTC')).toEqual({ balance: '0.5', reserved: '0.5' });
    expect(await entries(lender.call, 'BTC', 'interest')).toEqual([
      { amount: '10.5', type: 'Loan' },
    ]);
  });
});
