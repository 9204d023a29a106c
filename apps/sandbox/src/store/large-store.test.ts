import {
  zCreateOrderResponse,
  zGetOrderResponse,
  zGetProductResponse,
  zListBalanceHistoryResponse,
  zListExecutionsResponse,
  zListLoansResponse,
  zListOrdersResponse,
  zListOwnExecutionsResponse,
  zListTradesResponse,
  zListTransactionsResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { describe, expect, it } from 'vitest';
import { houseUserId } from '../exchange/ledger.js';
import { startSandbox } from '../server.js';
import { demoClient, lastingStore, send, valid } from '../test-support.js';
import { addFillHistory } from './fill-history.js';
import { addLedgerHistory } from './ledger-history.js';
import { addOrderHistory } from './order-history.js';
import { addPositionHistory } from './position-history.js';
import { countingReads } from './rows-read.test-support.js';
import { demoUserId } from './seed.js';

// Past the 130,000 orders at which a start once overflowed the stack spreading their ids.
const historySize = 150_000;
const ledgerSize = 200_000;
// A fill a minute: about 70 days of them, the last of which the market figures look at.
const fillsSize = 100_000;
// And then a busy last few minutes: more fills in a day than a call may spread as arguments.
const busySize = 160_000;
// Closed margin positions, each with the loan it repaid.
const positionsSize = 50_000;
const minute = 60_000;
const day = 24 * 60 * minute;

type Running = Awaited<ReturnType<typeof startSandbox>>;

/** Product 1's public fills and market figures, each as the store's fills give them. */
async function expectFillsServed(sandbox: Running) {
  const stored = (sql: string, params: unknown[] = []) =>
    sandbox.database.read(async (tx) => (await tx.query<Record<string, string>>(sql, params)).rows);
  const [newest] = await stored(
    `SELECT id, price::text AS price, count(*) OVER () AS fills, created_at FROM fills
     WHERE product_id = 1 ORDER BY id DESC LIMIT 1`,
  );
  const page = valid(
    zListExecutionsResponse,
    await send(sandbox.exchangeUrl, 'GET', '/executions?product_id=1&limit=1', {}),
  );
  expect(page).toMatchObject({
    models: [{ id: Number(newest?.id), price: newest?.price }],
    total_pages: Number(newest?.fills),
  });
  // From a second a week back on: the fills stored from then, oldest first.
  const weekAgo = Math.floor((Number(newest?.created_at) - 7 * day) / 1000);
  const since = await stored(
    `SELECT id FROM fills WHERE product_id = 1 AND created_at >= $1 ORDER BY id LIMIT 3`,
    [weekAgo * 1000],
  );
  const fromWeekAgo = await send(
    sandbox.exchangeUrl,
    'GET',
    `/executions?product_id=1&timestamp=${weekAgo}&limit=3`,
    {},
  );
  expect((fromWeekAgo.body as { id: number }[]).map((fill) => fill.id)).toEqual(
    since.map((row) => Number(row.id)),
  );

  // The caller's own fills, every one a fill of theirs twice over, counted by the store.
  const own = valid(
    zListOwnExecutionsResponse,
    await demoClient(sandbox)('GET', '/executions/me?product_id=1&limit=20'),
  );
  expect(own.total_pages).toBe(Math.ceil((2 * Number(newest?.fills)) / 20));

  const product = valid(
    zGetProductResponse,
    await send(sandbox.exchangeUrl, 'GET', '/products/1', {}),
  );
  const now = Math.round(Number(product.timestamp) * 1000);
  const [lastDay] = await stored(
    `SELECT trim_scale(sum(quantity))::text AS volume, min(price)::text AS low, max(price)::text AS high
     FROM fills WHERE product_id = 1 AND created_at > $1`,
    [now - day],
  );
  const [first] = await stored(
    `SELECT price::text AS price FROM fills WHERE product_id = 1 AND created_at > $1
     ORDER BY created_at, id LIMIT 1`,
    [now - day],
  );
  expect(product).toMatchObject({
    last_traded_price: newest?.price,
    last_price_24h: first?.price,
    volume_24h: lastDay?.volume,
    low_market_bid: lastDay?.low,
    high_market_ask: lastDay?.high,
  });
}

/** The tables a page of a user's own fills reads: their places, the fills and the orders. */
const ownFillTables = ['own_fills', 'fills', 'orders'];

/** A page of the caller's own fills deep in their history: its rows, and only them, read. */
async function expectDeepOwnFillsPage(sandbox: Running) {
  const page = 9_000;
  const deep = valid(
    zListOwnExecutionsResponse,
    await demoClient(sandbox)(
      'GET',
      `/executions/me?product_id=1&limit=20&page=${page}&with_details=1`,
    ),
  );
  // The store's read of that page, with the rows it went through counted.
  const counted = countingReads(sandbox.database, ownFillTables);
  await counted.history.ownFills(demoUserId, 1, (page - 1) * 20, 20);
  const read = counted.rowsRead();
  expect(read).toBeLessThan(5_000);
  // Every fill is the caller's twice over, the taker's order first: the page holds ten.
  const fills = await sandbox.database.read(
    async (tx) =>
      (
        await tx.query<{ id: string; taker_order_id: string; maker_order_id: string }>(
          `SELECT id, taker_order_id, maker_order_id FROM fills WHERE product_id = 1
           ORDER BY id DESC LIMIT 10 OFFSET $1`,
          [((page - 1) * 20) / 2],
        )
      ).rows,
  );
  expect(deep.models.map((fill) => [fill.id, fill.order_id])).toEqual(
    fills.flatMap((fill) => [
      [Number(fill.id), Number(fill.taker_order_id)],
      [Number(fill.id), Number(fill.maker_order_id)],
    ]),
  );
}

/** The caller's closed trades and repaid loans, none held in memory, as the store holds them. */
async function expectClosedTradesServed(sandbox: Running) {
  const { exchange } = sandbox.sequencer.state;
  const held = [...exchange.positions.values()].filter(
    (position) => position.userId === demoUserId,
  );
  expect(held).toEqual([]);
  const lent = [...exchange.loans.values()].filter((loan) => loan.borrowerId === demoUserId);
  expect(lent).toEqual([]);
  const call = demoClient(sandbox);
  const [newest] = await sandbox.database.read(
    async (tx) =>
      (
        await tx.query<{ id: string; loan: string }>(
          `SELECT p.id, l.id AS loan FROM positions p JOIN loans l ON l.position_id = p.id
           WHERE p.user_id = $1 ORDER BY p.created_at DESC, p.id DESC LIMIT 1`,
          [demoUserId],
        )
      ).rows,
  );
  const trades = valid(zListTradesResponse, await call('GET', '/trades?status=closed&limit=20'));
  expect(trades.total_pages).toBe(positionsSize / 20);
  expect(trades.models[0]).toMatchObject({
    id: Number(newest?.id),
    status: 'closed',
    open_quantity: '0',
    close_pnl: '0.01',
    total_interest: '0',
  });
  const loans = valid(zListLoansResponse, await call('GET', '/loans?currency=JPY&limit=20'));
  expect(loans.total_pages).toBe(positionsSize / 20);
  expect(loans.models[0]).toMatchObject({ id: Number(newest?.loan), status: 'closed' });
  // The ids handed out next follow the history's.
  expect(exchange.next.position).toBeGreaterThan(Number(newest?.id));
  expect(exchange.next.loan).toBeGreaterThan(Number(newest?.loan));
}

describe('a start on a store that holds a long history', () => {
  it(`starts on ${historySize.toLocaleString('en')} orders, ${(fillsSize + busySize).toLocaleString('en')} fills, ${ledgerSize.toLocaleString('en')} ledger entries and ${positionsSize.toLocaleString('en')} closed positions, holds none, and serves them`, async () => {
    const store = await lastingStore();
    const first = await startSandbox({ port: 0, ...store });
    let liveId: number;
    try {
      const placed = await demoClient(first)('POST', '/orders', {
        body: {
          order_type: 'limit',
          product_id: 1,
          side: 'buy',
          quantity: '0.01',
          price: '9000000',
        },
      });
      liveId = Number(valid(zCreateOrderResponse, placed).id);
      await first.database.transaction(async (tx) => {
        await addOrderHistory(tx, {
          orders: historySize,
          userId: demoUserId,
          productId: 1,
          since: Date.now() - historySize,
        });
        await addLedgerHistory(tx, {
          entries: ledgerSize,
          userId: demoUserId,
          currency: 'XRP',
          since: Date.now() - ledgerSize,
        });
        await addPositionHistory(tx, {
          positions: positionsSize,
          userId: demoUserId,
          lenderId: houseUserId,
          productId: 1,
          currency: 'JPY',
          since: Date.now() - positionsSize,
        });
        // Half a minute off the minutes before now, so no fill sits where a day ago falls, and
        // ending before the busy minutes.
        await addFillHistory(tx, {
          fills: fillsSize,
          userId: demoUserId,
          productId: 1,
          since: Date.now() - (fillsSize + 4) * minute + minute / 2,
          every: minute,
        });
        await addFillHistory(tx, {
          fills: busySize,
          userId: demoUserId,
          productId: 1,
          since: Date.now() - 4 * minute,
          every: 1,
        });
      });
    } finally {
      await first.close();
    }

    const second = await startSandbox({ port: 0, ...store });
    try {
      // The history stays in the store: memory holds the open orders alone, and no entry.
      const { exchange } = second.sequencer.state;
      const held = [...exchange.orders.values()];
      expect(held.filter((order) => order.userId === demoUserId).map((order) => order.id)).toEqual([
        liveId,
      ]);
      expect(exchange.entriesByUser.all()).toEqual([]);
      // Of the fills, memory holds the last day's seconds, for the market figures, and no more.
      expect(exchange.fillsByProduct.all()).toEqual([]);
      const heldSeconds = [...exchange.traded.values()].flatMap((traded) => traded.held().seconds);
      expect(heldSeconds.length).toBeLessThanOrEqual(day / minute + busySize / 1000 + 1);
      await expectFillsServed(second);
      await expectClosedTradesServed(second);
      await expectDeepOwnFillsPage(second);
      const call = demoClient(second);
      const latest = valid(
        zListBalanceHistoryResponse,
        await call('GET', '/balance_history?currency=XRP&limit=10'),
      );
      expect(latest.slice(0, 2).map((entry) => entry.amount)).toEqual(['-1', '1']);
      const newestEntry = latest[0]?.id ?? 0;
      expect(newestEntry - (latest[1]?.id ?? 0)).toBe(1);
      const paged = valid(
        zListTransactionsResponse,
        await call('GET', `/transactions?currency=XRP&limit=1000&page=${ledgerSize / 1000}`),
      );
      // The last page of all, counted for its pages, reads its own rows and not the others.
      const entries = countingReads(second.database, ['ledger_entries', 'ledger_entry_counts']);
      const xrp = { currency: 'XRP' };
      await entries.history.entries(demoUserId, xrp, ledgerSize - 1000, 1000);
      await entries.history.countEntries(demoUserId, xrp);
      const readForPage = entries.rowsRead();
      expect(readForPage).toBeLessThan(5_000);
      // The seed's funding entry of XRP is the one past the history's pages.
      expect(paged.total_pages).toBe(ledgerSize / 1000 + 1);
      expect(paged.models).toHaveLength(1000);
      expect(paged.models[0]?.id).toBe(newestEntry - (ledgerSize - 1000));
      const list = valid(
        zListOrdersResponse,
        await call('GET', '/orders?limit=1&status=cancelled'),
      );
      expect(list.total_pages).toBe(historySize);
      const newest = list.models[0];
      expect(newest).toMatchObject({
        status: 'cancelled',
        client_order_id: `history-${newest?.id}`,
      });

      const byClientId = await call('GET', `/orders/client:history-${newest?.id}`);
      expect(valid(zGetOrderResponse, byClientId).status).toBe('cancelled');
      const reused = await call('POST', '/orders', {
        body: {
          order_type: 'limit',
          product_id: 1,
          side: 'buy',
          quantity: '0.01',
          price: '9000000',
          client_order_id: `history-${newest?.id}`,
        },
      });
      expect(reused).toMatchObject({
        status: 422,
        body: { errors: { client_order_id: ['already_used'] } },
      });

      const live = valid(zGetOrderResponse, await call('GET', `/orders/${liveId}`));
      expect(live.status).toBe('live');
      // The order still rests in its book, at its price.
      const book = await send(second.exchangeUrl, 'GET', '/products/1/price_levels', {});
      expect((book.body as { buy_price_levels: string[][] }).buy_price_levels).toContainEqual([
        '9000000',
        '0.01',
      ]);

      // The ids handed out next follow the history instead of running into it.
      const next = valid(
        zCreateOrderResponse,
        await call('POST', '/orders', {
          body: {
            order_type: 'limit',
            product_id: 1,
            side: 'buy',
            quantity: '0.01',
            price: '9000001',
          },
        }),
      );
      expect(Number(next.id)).toBeGreaterThan(Number(newest?.id));
    } finally {
      await second.close();
    }
  }, 360_000);
});
