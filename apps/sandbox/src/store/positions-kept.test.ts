import {
  zCloseTradeResponse,
  zGetTradingAccountResponse,
  zListBalanceHistoryResponse,
  zListLoanBidsResponse,
  zListLoansResponse,
  zListTradesResponse,
  zListTradingAccountsResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox, valid } from '../test-support.js';
import {
  balances,
  freshProduct,
  getOrder,
  openPosition,
  place,
  storedTrading,
  type TradingSandbox,
  tradeAt,
} from '../testing/trading.js';

let sandbox: RunningSandbox;
let trading: TradingSandbox;

beforeAll(async () => {
  // Test control, for the clock loans charge interest by.
  sandbox = await startTestSandbox({ testControl: true });
  trading = storedTrading(sandbox);
});
afterAll(() => sandbox.close());

/**
 * A margin long of 1 at 100 on a fresh product, funded in BTC at leverage 2, filled at once
 * and lent half its value from a bid of the lender's at `rate`: the cheapest live bid, so the
 * loan is lent from it. A buy of the seller's rests after it.
 */
async function lentPosition(rate: string) {
  const product_id = await freshProduct(trading, { margin: true });
  const [lender, trader, other] = [
    await trading.addUser(),
    await trading.addUser(),
    await trading.addUser(),
  ];
  const bid = { loan_bid: { currency: 'BTC', rate, quantity: '2' } };
  const offered = await lender.call('POST', '/loan_bids', { body: bid });
  expect(offered.status).toBe(200);
  const long = { product_id, price: '100', quantity: '1', trading_type: 'margin' };
  const order = await place(trader.call, { ...long, leverage_level: 2, funding_currency: 'BTC' });
  await place(other.call, { product_id, side: 'sell', price: '100', quantity: '1' });
  await place(other.call, { product_id, price: '100', quantity: '1' });
  return { lender, trader, other, order, bidId: (offered.body as { id: number }).id };
}

describe('a margin position in the store', () => {
  it('is read back holding its margin, and its take profit still closes it', async () => {
    const { product_id, trader, takeProfit } = await openPosition(trading, {
      side: 'buy',
      leverage: 2,
      takeProfit: '120',
      stopLoss: '80',
    });
    await sandbox.sequencer.reload();
    expect((await balances(trader.call, 'JPY')).reserved).toBe('50');
    await tradeAt(trading, product_id, '120');
    const buyer = await trading.addUser();
    await place(buyer.call, { product_id, price: '120', quantity: '1' });
    await sandbox.sequencer.reload();
    expect((await getOrder(trader.call, takeProfit.id)).status).toBe('filled');
    expect(await balances(trader.call, 'JPY')).toEqual({
      balance: '100000020',
      reserved: '0',
    });
  });

  it('is read back closed in part and added to, at the average price of its open part', async () => {
    const product_id = await freshProduct(trading, { margin: true });
    const [trader, seller, buyer] = [
      await trading.addUser(),
      await trading.addUser(),
      await trading.addUser(),
    ];
    await place(seller.call, { product_id, side: 'sell', price: '80', quantity: '0.5' });
    const long = { product_id, price: '90', quantity: '1', trading_type: 'margin' };
    const order = await place(trader.call, { ...long, leverage_level: 2 });
    const tradeId = Number((await getOrder(trader.call, order.id)).trade_id);
    await place(buyer.call, { product_id, price: '91', quantity: '0.25' });
    const closing = { body: { closed_quantity: '0.25' } };
    valid(zCloseTradeResponse, await trader.call('PUT', `/trades/${tradeId}/close`, closing));
    await place(seller.call, { product_id, side: 'sell', price: '90', quantity: '0.5' });
    await sandbox.sequencer.reload();
    const [trade] = valid(zListTradesResponse, await trader.call('GET', '/trades')).models;
    // 0.25 bought at 80 and 0.5 at 90 are open; the 0.25 closed cost 20.
    expect(trade).toMatchObject({ open_price: '86.66666666', margin_used: '32.5' });
    await place(buyer.call, { product_id, price: '91', quantity: '0.75' });
    const closed = await trader.call('PUT', `/trades/${tradeId}/close`, {});
    expect(valid(zCloseTradeResponse, closed).close_pnl).toBe('6');
  });
});

describe('a mark price test control set', () => {
  it('is read back until the product fills again, valuing its positions as before', async () => {
    const { product_id, trader } = await openPosition(trading, {
      side: 'buy',
      leverage: 2,
      takeProfit: '120',
      stopLoss: '80',
    });
    const openPnl = async () => {
      const listed = valid(zListTradesResponse, await trader.call('GET', '/trades?status=open'));
      return listed.models.find((trade) => trade.product_id === product_id)?.open_pnl;
    };
    const moved = await fetch(`${sandbox.exchangeUrl}/test/products/${product_id}/mark_price`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ price: '110' }),
    });
    expect(moved.status).toBe(200);
    expect(await openPnl()).toBe('10');
    await sandbox.sequencer.reload();
    expect(await openPnl()).toBe('10');
    // A fill moves the mark to its price: the one set before no longer holds.
    await tradeAt(trading, product_id, '105');
    await sandbox.sequencer.reload();
    expect(await openPnl()).toBe('5');
  });
});

describe('a trading account in the store', () => {
  it('keeps the leverage level set on it, which orders still take', async () => {
    const product_id = await freshProduct(trading, { margin: true });
    const trader = await trading.addUser();
    const listed = valid(
      zListTradingAccountsResponse,
      await trader.call('GET', '/trading_accounts'),
    );
    const account = listed.find((entry) => entry.product_id === product_id);
    const path = `/trading_accounts/${account?.id}`;
    const set = { body: { trading_account: { leverage_level: 4 } } };
    expect((await trader.call('PUT', path, set)).status).toBe(200);
    await sandbox.sequencer.reload();
    expect(valid(zGetTradingAccountResponse, await trader.call('GET', path))).toMatchObject({
      id: account?.id,
      leverage_level: 4,
    });
    const order = await place(trader.call, { product_id, price: '100', trading_type: 'margin' });
    expect(order.leverage_level).toBe(4);
  });
});

describe('a loan in the store', () => {
  it('is read back lent from its bid, charges interest by the clock, and is repaid', async () => {
    const { lender, trader, other, order } = await lentPosition('0.0002');
    const lent = valid(zListLoansResponse, await lender.call('GET', '/loans?currency=BTC'));
    expect(lent.models).toMatchObject([{ quantity: '0.5', status: 'open' }]);

    await sandbox.sequencer.reload();
    expect(valid(zListLoansResponse, await lender.call('GET', '/loans?currency=BTC'))).toEqual(
      lent,
    );
    // Read back for its borrower too, and for no one else.
    const listed = async (call: typeof lender.call) =>
      valid(zListLoansResponse, await call('GET', '/loans?currency=BTC'));
    expect(await listed(trader.call)).toEqual(lent);
    expect((await listed(other.call)).models).toEqual([]);
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '9.5', reserved: '1.5' });
    // The lender's choice is kept too, then taken back for the repayment below.
    const relend = (fund_reloaned: boolean) =>
      lender.call('PUT', `/loans/${lent.models[0]?.id}`, { body: { loan: { fund_reloaned } } });
    expect((await relend(false)).status).toBe(200);
    await sandbox.sequencer.reload();
    const chosen = valid(zListLoansResponse, await lender.call('GET', '/loans?currency=BTC'));
    expect(chosen.models).toMatchObject([{ fund_reloaned: false }]);
    expect((await relend(true)).status).toBe(200);
    const moved = await fetch(`${sandbox.exchangeUrl}/test/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance_seconds: 86_400 }),
    });
    expect(moved.status).toBe(200);
    // Charged as the clock moved: the ledger is read without charging anything.
    const interest = valid(
      zListBalanceHistoryResponse,
      await lender.call('GET', '/balance_history?currency=BTC&source_action=interest'),
    );
    expect(interest.map((entry) => entry.amount)).toEqual(['0.0001']);

    await sandbox.sequencer.reload();
    const [trade] = valid(zListTradesResponse, await trader.call('GET', '/trades')).models;
    expect(trade).toMatchObject({ total_interest: '0.0001', daily_interest: '0.0001' });
    const closed = await trader.call(
      'PUT',
      `/trades/${(await getOrder(trader.call, order.id)).trade_id}/close`,
      {
        body: {},
      },
    );
    expect(closed.status).toBe(200);
    await sandbox.sequencer.reload();
    expect(await balances(lender.call, 'BTC')).toEqual({ balance: '10.0001', reserved: '2' });
    const repaid = valid(zListLoansResponse, await lender.call('GET', '/loans?currency=BTC'));
    expect(repaid.models).toMatchObject([{ status: 'closed', fund_reloaned: true }]);
    expect(await listed(trader.call)).toEqual(repaid);
  });
});

describe('a closed position', () => {
  it('leaves memory with its loans, and the store answers for both', async () => {
    // Cheaper than the bid above, which is live still.
    const { lender, trader, other, order } = await lentPosition('0.0001');
    const tradeId = (await getOrder(trader.call, order.id)).trade_id as number;
    const [loan] = valid(
      zListLoansResponse,
      await lender.call('GET', '/loans?currency=BTC'),
    ).models;
    const pages = async (status: string) =>
      valid(zListTradesResponse, await trader.call('GET', `/trades?status=${status}`)).total_pages;
    expect([await pages('open'), await pages('closed')]).toEqual([1, 0]);
    const closed = await trader.call('PUT', `/trades/${tradeId}/close`, { body: {} });
    expect(closed.status).toBe(200);
    await sandbox.sequencer.settled();
    expect([await pages('open'), await pages('closed')]).toEqual([0, 1]);

    const held = () => sandbox.sequencer.state.exchange;
    const inMemory = () => ({
      position: held().positions.has(tradeId),
      loan: held().loans.has(loan?.id as number),
    });
    expect(inMemory()).toEqual({ position: false, loan: false });
    const trades = valid(zListTradesResponse, await trader.call('GET', '/trades?status=closed'));
    expect(trades.models).toEqual([valid(zCloseTradeResponse, closed)]);
    expect(trades.models[0]).toMatchObject({ id: tradeId, status: 'closed' });
    const ofOrder = await trader.call('GET', `/orders/${order.id}/trades`);
    expect(ofOrder.body).toEqual(trades.models);
    const loans = valid(zListLoansResponse, await lender.call('GET', '/loans?currency=BTC'));
    expect(loans.models).toMatchObject([{ id: loan?.id, status: 'closed' }]);

    // Refused as a closed trade and a repaid loan are, not as unknown ones.
    const refusal = async (reply: Promise<{ status: number; body: unknown }>) => {
      const { status, body } = await reply;
      return { status, body: JSON.stringify(body) };
    };
    const closeAgain = await refusal(trader.call('PUT', `/trades/${tradeId}/close`, { body: {} }));
    expect(closeAgain).toMatchObject({ status: 422, body: expect.stringContaining('not_open') });
    const move = { body: { trade: { stop_loss: '90' } } };
    expect((await trader.call('PUT', `/trades/${tradeId}`, move)).status).toBe(422);
    expect((await other.call('PUT', `/trades/${tradeId}/close`, { body: {} })).status).toBe(404);
    const relend = (call: typeof lender.call) =>
      refusal(call('PUT', `/loans/${loan?.id}`, { body: { loan: { fund_reloaned: false } } }));
    expect(await relend(lender.call)).toMatchObject({
      status: 422,
      body: expect.stringContaining('loan_id'),
    });
    expect(await relend(trader.call)).toMatchObject({
      status: 422,
      body: expect.stringContaining('lender_only'),
    });
    expect((await relend(other.call)).status).toBe(404);

    // A start reads only what is open, and numbers what comes next past what is stored.
    await sandbox.sequencer.reload();
    expect(inMemory()).toEqual({ position: false, loan: false });
    expect(held().next.position).toBeGreaterThan(tradeId);
    expect(held().next.loan).toBeGreaterThan(loan?.id as number);
    expect(valid(zListTradesResponse, await trader.call('GET', '/trades'))).toEqual(trades);
  });
});

describe('a closed loan bid', () => {
  it('stays in memory while a loan from it is out, then the store answers for it', async () => {
    // Cheaper than the bids above, which are live still.
    const { lender, trader, other, order, bidId } = await lentPosition('0.00005');
    const close = () => lender.call('PUT', `/loan_bids/${bidId}/close`);
    expect((await close()).status).toBe(200);
    await sandbox.sequencer.settled();
    const held = () => sandbox.sequencer.state.exchange.loanBids.has(bidId);
    // What is lent from it comes back to it when repaid.
    expect(held()).toBe(true);
    const tradeId = (await getOrder(trader.call, order.id)).trade_id;
    expect((await trader.call('PUT', `/trades/${tradeId}/close`, { body: {} })).status).toBe(200);
    await sandbox.sequencer.settled();
    expect(held()).toBe(false);

    const listed = valid(
      zListLoanBidsResponse,
      await lender.call('GET', '/loan_bids?currency=BTC'),
    );
    expect(listed.models[0]).toMatchObject({ id: bidId, status: 'closed', filled_quantity: '0' });
    const again = await close();
    expect(again).toMatchObject({ status: 422, body: { errors: { status: ['closed'] } } });
    expect((await other.call('PUT', `/loan_bids/${bidId}/close`)).status).toBe(404);
    // Test control refuses to lend from it as from a closed bid memory holds.
    const borrow = await fetch(`${sandbox.exchangeUrl}/test/loan_bids/${bidId}/borrow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ quantity: '0.1' }),
    });
    expect({ status: borrow.status, body: await borrow.json() }).toEqual({
      status: 422,
      body: { errors: { loan_bid_id: ['not_live:closed'] } },
    });
    await sandbox.sequencer.reload();
    expect(held()).toBe(false);
    expect(sandbox.sequencer.state.exchange.next.loanBid).toBeGreaterThan(bidId);
    expect(
      valid(zListLoanBidsResponse, await lender.call('GET', '/loan_bids?currency=BTC')),
    ).toEqual(listed);
  });
});

describe('a loan of no position, lent to the house through test control', () => {
  it('is read back open: its lender still sets it, and the house repays it', async () => {
    const lender = await trading.addUser();
    const bid = await lender.call('POST', '/loan_bids', {
      body: { loan_bid: { currency: 'BTC', rate: '0.00007', quantity: '0.05' } },
    });
    const control = (path: string, body: Record<string, unknown>) =>
      fetch(`${sandbox.exchangeUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const bidId = (bid.body as { id: number }).id;
    const borrowed = await control(`/test/loan_bids/${bidId}/borrow`, { quantity: '0.01' });
    const { loan_id: loanId } = (await borrowed.json()) as { loan_id: number };
    await sandbox.sequencer.reload();
    const set = await lender.call('PUT', `/loans/${loanId}`, {
      body: { loan: { fund_reloaned: false } },
    });
    expect(set.status).toBe(200);
    expect((await control(`/test/loans/${loanId}/repay`, {})).status).toBe(200);
    const loans = valid(zListLoansResponse, await lender.call('GET', '/loans?currency=BTC'));
    expect(loans.models.find((loan) => loan.id === loanId)).toMatchObject({ status: 'closed' });
  });
});

describe("the store's counts of trades and loans", () => {
  it('are what counting the rows gives, after every call above', async () => {
    const rows = (sql: string) =>
      sandbox.database.read(async (tx) => (await tx.query<Record<string, unknown>>(sql)).rows);
    const kind = 'user_id, status, side, product_id, funding_currency, trading_type';
    expect(
      await rows(`SELECT ${kind}, trades FROM trade_counts WHERE trades <> 0 ORDER BY ${kind}`),
    ).toEqual(
      await rows(
        `SELECT ${kind}, count(*) AS trades FROM positions GROUP BY ${kind} ORDER BY ${kind}`,
      ),
    );
    const parties = `SELECT lender_id AS user_id, currency, id FROM loans
      UNION SELECT borrower_id, currency, id FROM loans`;
    const counted = await rows(
      `SELECT user_id, currency, count(*) AS loans FROM (${parties}) AS p
       GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(counted.length).toBeGreaterThan(0);
    expect(await rows('SELECT user_id, currency, loans FROM loan_counts ORDER BY 1, 2')).toEqual(
      counted,
    );
  });
});
