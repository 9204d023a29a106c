import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';
import {
  freshProduct,
  openPosition,
  place,
  storedTrading,
  type TradingSandbox,
} from '../testing/trading.js';
import { addUnplacedLoans, addUnplacedPosition } from './position-history.js';

let sandbox: RunningSandbox;
let trading: TradingSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  trading = storedTrading(sandbox);
});
afterAll(() => sandbox.close());

/**
 * What the sandbox writes itself that the store's triggers would otherwise work out per row:
 * ledger entries' places, the counts of fills and entries, own fills and their places. Each
 * must come out as the triggers make them, and the triggers still serve another writer.
 */

/**
 * Runs `work` with the store's triggers named (`table.trigger`) disabled, as if the store did
 * none of their work: what the sandbox writes must stand on its own.
 */
async function withoutTriggers<T>(named: readonly string[], work: () => Promise<T>): Promise<T> {
  const set = (action: 'DISABLE' | 'ENABLE') =>
    sandbox.database.transaction(async (tx) => {
      for (const name of named) {
        const [table, trigger] = name.split('.');
        await tx.query(`ALTER TABLE ${table} ${action} TRIGGER ${trigger}`);
      }
    });
  await set('DISABLE');
  try {
    return await work();
  } finally {
    await set('ENABLE');
  }
}

/** The places of `userId`'s stored entries of `currency`, in the order they were written. */
const places = (userId: number, currency: string) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ currency_place: string | number }>(
      'SELECT currency_place FROM ledger_entries WHERE user_id = $1 AND currency = $2 ORDER BY id',
      [userId, currency],
    );
    return rows.map((row) => Number(row.currency_place));
  });

const oneTo = (count: number) => Array.from({ length: count }, (_, n) => n + 1);

/** A spot trade of `quantity` BTC between two new users: entries in both currencies of each. */
async function trade(quantity: string) {
  const product_id = await freshProduct(trading);
  const [buyer, seller] = [await trading.addUser(), await trading.addUser()];
  await place(seller.call, { product_id, side: 'sell', price: '100', quantity });
  await place(buyer.call, { product_id, price: '100', quantity });
  await sandbox.sequencer.settled();
  return { product_id, buyer, seller };
}

describe('a ledger entry in the store', () => {
  it('is written with its place by the sandbox, the store placing none of them', async () => {
    await withoutTriggers(['ledger_entries.ledger_entries_placed'], async () => {
      const { buyer, seller } = await trade('1');
      // Funding, the trade and, in the quote currency, its fee.
      expect(await places(buyer.userId, 'JPY')).toEqual(oneTo(3));
      expect(await places(buyer.userId, 'BTC')).toEqual(oneTo(2));
      expect(await places(seller.userId, 'JPY')).toEqual(oneTo(3));
    });
  });

  it('takes the place after those another writer left, once the sandbox read them', async () => {
    const { product_id, buyer } = await trade('0.5');
    // Written beside the sandbox, without a place: the store's trigger places it.
    await sandbox.database.transaction((tx) =>
      tx.query(
        `INSERT INTO ledger_entries (user_id, currency, amount, balance, source_action, created_at)
         SELECT user_id, currency, 0, balance, 'funding', 0 FROM accounts
         WHERE user_id = $1 AND currency = 'JPY'`,
        [buyer.userId],
      ),
    );
    await place(buyer.call, { product_id, side: 'sell', price: '100', quantity: '0.1' });
    const seller = await trading.addUser();
    await place(seller.call, { product_id, price: '100', quantity: '0.1' });
    await sandbox.sequencer.settled();
    expect(await places(buyer.userId, 'JPY')).toEqual(oneTo(6));
  });
});

/** The places of `userId`'s stored positions, in the order of their ids. */
const positionPlaces = (userId: number) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ user_place: string | number }>(
      'SELECT user_place FROM positions WHERE user_id = $1 ORDER BY id',
      [userId],
    );
    return rows.map((row) => Number(row.user_place));
  });

/** `count` margin buys by a new user, each filled at once: a position each. */
async function marginBuys(count: number) {
  const product_id = await freshProduct(trading, { margin: true });
  const [trader, counterpart] = [await trading.addUser(), await trading.addUser()];
  const quantity = String(count + 1);
  await place(counterpart.call, { product_id, side: 'sell', price: '100', quantity });
  const buy = async () =>
    place(trader.call, {
      product_id,
      price: '100',
      quantity: '1',
      trading_type: 'margin',
      leverage_level: 2,
    });
  for (let n = 0; n < count; n++) await buy();
  await sandbox.sequencer.settled();
  return { trader, buy };
}

describe('a position in the store', () => {
  it('is written with its place by the sandbox, the store placing none of them', async () => {
    await withoutTriggers(['positions.positions_placed'], async () => {
      const { trader } = await marginBuys(3);
      expect(await positionPlaces(trader.userId)).toEqual(oneTo(3));
    });
  });

  it('takes the place after one another writer left, once the sandbox read it', async () => {
    const { trader, buy } = await marginBuys(1);
    // Written beside the sandbox, without a place: the store's trigger places it.
    await sandbox.database.transaction((tx) => addUnplacedPosition(tx, trader.userId));
    await buy();
    await sandbox.sequencer.settled();
    expect(await positionPlaces(trader.userId)).toEqual(oneTo(3));
  });
});

/** `userId`'s stored loans, lent or borrowed: each one's currency and place, by id. */
const loanPlaces = (userId: number) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ currency: string; place: string | number }>(
      `SELECT currency,
         CASE WHEN lender_id = $1 THEN lender_place ELSE borrower_place END AS place
       FROM loans WHERE lender_id = $1 OR borrower_id = $1 ORDER BY id`,
      [userId],
    );
    return rows.map((row) => ({ currency: row.currency, place: Number(row.place) }));
  });

/** Who lent the loans `userId` borrowed. */
const lendersTo = (userId: number) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ lender_id: string | number }>(
      'SELECT DISTINCT lender_id FROM loans WHERE borrower_id = $1',
      [userId],
    );
    return rows.map((row) => Number(row.lender_id));
  });

/** Each currency's places from 1 on, in the order of `placed`: what loans written in turn hold. */
const denseByCurrency = (placed: readonly { currency: string }[]) => {
  const counted = new Map<string, number>();
  return placed.map(({ currency }) => {
    const place = (counted.get(currency) ?? 0) + 1;
    counted.set(currency, place);
    return { currency, place };
  });
};

describe('a loan in the store', () => {
  it('is written with its places by the sandbox, the store placing none of them', async () => {
    await withoutTriggers(['loans.loans_placed'], async () => {
      const { trader } = await marginBuys(3);
      const borrowed = await loanPlaces(trader.userId);
      expect(borrowed).toHaveLength(3);
      expect(borrowed).toEqual(denseByCurrency(borrowed));
      // The lender's list holds every loan it made, to every user of every test here.
      const [lender] = await lendersTo(trader.userId);
      const lent = await loanPlaces(lender ?? 0);
      expect(lent.length).toBeGreaterThanOrEqual(3);
      expect(lent).toEqual(denseByCurrency(lent));
    });
  });

  it('takes the place after one another writer left, once the sandbox read it', async () => {
    const { trader, buy } = await marginBuys(1);
    const [lender] = await lendersTo(trader.userId);
    const [first] = await loanPlaces(trader.userId);
    // Written beside the sandbox, without its places: the store's trigger places it.
    await sandbox.database.transaction((tx) =>
      addUnplacedLoans(tx, first?.currency ?? '', [
        { lenderId: lender ?? 0, borrowerId: trader.userId },
      ]),
    );
    await buy();
    await sandbox.sequencer.settled();
    const borrowed = await loanPlaces(trader.userId);
    expect(borrowed).toHaveLength(3);
    expect(borrowed).toEqual(denseByCurrency(borrowed));
    const lent = await loanPlaces(lender ?? 0);
    expect(lent).toEqual(denseByCurrency(lent));
  });
});

/** The counts the store keeps of a product's fills and of a user's entries, beside the rows. */
const counts = (productId: number, userId: number) =>
  sandbox.database.read(async (tx) => {
    const number = (rows: { n: string | number }[]) => Number(rows[0]?.n ?? 0);
    const kept = {
      fills: number(
        (
          await tx.query<{ n: number }>(
            'SELECT fills AS n FROM product_fill_counts WHERE product_id = $1',
            [productId],
          )
        ).rows,
      ),
      entries: (
        await tx.query<{ kind: string; n: string }>(
          `SELECT currency || ' ' || source_action AS kind, entries::text AS n
           FROM ledger_entry_counts WHERE user_id = $1 ORDER BY kind`,
          [userId],
        )
      ).rows,
    };
    const counted = {
      fills: number(
        (
          await tx.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM fills WHERE product_id = $1',
            [productId],
          )
        ).rows,
      ),
      entries: (
        await tx.query<{ kind: string; n: string }>(
          `SELECT currency || ' ' || source_action AS kind, count(*)::text AS n
           FROM ledger_entries WHERE user_id = $1 GROUP BY currency, source_action ORDER BY kind`,
          [userId],
        )
      ).rows,
    };
    return { kept, counted };
  });

/** Two spot trades of 0.5 BTC between two new users on a product of their own. */
async function twoTrades() {
  const product_id = await freshProduct(trading);
  const [buyer, seller] = [await trading.addUser(), await trading.addUser()];
  await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '1' });
  await place(buyer.call, { product_id, price: '100', quantity: '0.5' });
  await place(buyer.call, { product_id, price: '100', quantity: '0.5' });
  await sandbox.sequencer.settled();
  return { product_id, buyer, seller };
}

describe('the counts of fills and ledger entries in the store', () => {
  it('are moved by the sandbox as it writes the rows, the store counting none of them', async () => {
    await withoutTriggers(
      ['fills.fills_counted', 'ledger_entries.ledger_entries_counted'],
      async () => {
        const { product_id, buyer } = await twoTrades();
        const { kept, counted } = await counts(product_id, buyer.userId);
        expect(kept.fills).toBe(2);
        // The trades and, in the quote currency, their fees, beside each currency's funding.
        expect(kept.entries).toEqual(
          expect.arrayContaining([
            { kind: 'BTC trade', n: '2' },
            { kind: 'JPY funding', n: '1' },
            { kind: 'JPY trade', n: '2' },
            { kind: 'JPY trade_fee', n: '2' },
          ]),
        );
        expect(kept).toEqual(counted);
      },
    );
  });

  it('count what another writer adds beside the sandbox once, and the sandbox goes on', async () => {
    const { product_id, buyer, seller } = await twoTrades();
    await sandbox.database.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO ledger_entries (user_id, currency, amount, balance, source_action, created_at)
         SELECT user_id, currency, 0, balance, 'funding', 0 FROM accounts
         WHERE user_id = $1 AND currency = 'BTC'`,
        [buyer.userId],
      );
      await tx.query(
        `INSERT INTO fills (product_id, taker_order_id, maker_order_id, taker_side, price,
           quantity, created_at)
         SELECT product_id, taker_order_id, maker_order_id, taker_side, price, quantity, created_at
         FROM fills WHERE product_id = $1 ORDER BY id LIMIT 1`,
        [product_id],
      );
    });
    await place(buyer.call, { product_id, side: 'sell', price: '100', quantity: '0.1' });
    await place(seller.call, { product_id, price: '100', quantity: '0.1' });
    await sandbox.sequencer.settled();
    const { kept, counted } = await counts(product_id, buyer.userId);
    expect(kept.fills).toBe(4);
    expect(kept.entries).toContainEqual({ kind: 'BTC funding', n: '2' });
    expect(kept).toEqual(counted);
  });
});

/** Each count of orders, trades and loans the store keeps, beside the same counted from rows. */
const marginCounts = () =>
  sandbox.database.read(async (tx) => {
    const rows = async (sql: string) =>
      (await tx.query<Record<string, unknown>>(sql)).rows.map((row) => JSON.stringify(row));
    const orderKind = 'user_id, status, product_id, trading_type, funding_currency';
    const tradeKind = 'user_id, status, side, product_id, funding_currency, trading_type';
    const parties = `SELECT lender_id AS user_id, currency, id FROM loans
      UNION SELECT borrower_id, currency, id FROM loans`;
    return {
      kept: {
        orders: await rows(
          `SELECT ${orderKind}, orders::int AS n FROM order_counts WHERE orders <> 0
           ORDER BY ${orderKind}`,
        ),
        trades: await rows(
          `SELECT ${tradeKind}, trades::int AS n FROM trade_counts WHERE trades <> 0
           ORDER BY ${tradeKind}`,
        ),
        loans: await rows(
          'SELECT user_id, currency, loans::int AS n FROM loan_counts WHERE loans <> 0 ORDER BY 1, 2',
        ),
      },
      counted: {
        orders: await rows(
          `SELECT ${orderKind}, count(*)::int AS n FROM orders GROUP BY ${orderKind}
           ORDER BY ${orderKind}`,
        ),
        trades: await rows(
          `SELECT ${tradeKind}, count(*)::int AS n FROM positions GROUP BY ${tradeKind}
           ORDER BY ${tradeKind}`,
        ),
        loans: await rows(
          `SELECT user_id, currency, count(*)::int AS n FROM (${parties}) AS p GROUP BY 1, 2
           ORDER BY 1, 2`,
        ),
      },
    };
  });

const marginTriggers = [
  'orders.orders_counted_added',
  'orders.orders_counted_moved',
  'positions.positions_counted_added',
  'positions.positions_counted_moved',
  'loans.loans_counted_added',
];

/**
 * Orders placed, edited, filled, partly filled and cancelled, and a margin position opened
 * with its loan, its take profit and stop loss, and closed: every kind of order and position
 * moves from one count to another.
 */
async function marginLife() {
  const { product_id } = await twoTrades();
  const maker = await trading.addUser();
  const resting = await place(maker.call, { product_id, price: '90', quantity: '1' });
  expect((await maker.call('PUT', `/orders/${resting.id}`, { body: { price: '91' } })).status).toBe(
    200,
  );
  const partly = await place(maker.call, { product_id, side: 'sell', price: '120', quantity: '2' });
  const taker = await trading.addUser();
  await place(taker.call, { product_id, price: '120', quantity: '1' });
  expect((await maker.call('PUT', `/orders/${partly.id}/cancel`)).status).toBe(200);
  const opened = await openPosition(trading, {
    side: 'buy',
    leverage: 2,
    takeProfit: '150',
    stopLoss: '50',
  });
  const { trader, tradeId } = opened;
  // The bid the close sells into.
  const bidder = await trading.addUser();
  await place(bidder.call, { product_id: opened.product_id, price: '100', quantity: '1' });
  expect((await trader.call('PUT', `/trades/${tradeId}/close`, { body: {} })).status).toBe(200);
  await sandbox.sequencer.settled();
}

describe('the counts of orders, trades and loans in the store', () => {
  it('are moved by the sandbox as it writes the rows, the store counting none of them', async () => {
    const before = await marginCounts();
    expect(before.kept).toEqual(before.counted);
    await withoutTriggers(marginTriggers, marginLife);
    const { kept, counted } = await marginCounts();
    // Every kind moved: orders cancelled and filled, a trade closed, a loan taken.
    expect(kept.orders).not.toEqual(before.kept.orders);
    expect(kept.trades.some((row) => row.includes('"closed"'))).toBe(true);
    expect(kept.loans.length).toBeGreaterThan(before.kept.loans.length);
    expect(kept).toEqual(counted);
  });

  it('count what another writer adds beside the sandbox once, and the sandbox goes on', async () => {
    await sandbox.database.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO orders (user_id, product_id, order_type, side, trading_type, quantity,
           filled_quantity, price, filled_value, status, leverage_level, funding_currency,
           conditional, reserved_amount, reserved_currency, sequence, created_at, updated_at)
         SELECT user_id, product_id, order_type, side, trading_type, quantity, 0, price, 0,
           'cancelled', leverage_level, funding_currency, conditional, 0, reserved_currency,
           sequence, created_at, updated_at
         FROM orders ORDER BY id DESC LIMIT 1`,
      );
      await tx.query(
        `UPDATE positions SET status = 'closed' WHERE id = (
           SELECT id FROM positions WHERE status = 'closed' ORDER BY id DESC LIMIT 1)`,
      );
    });
    await marginLife();
    const { kept, counted } = await marginCounts();
    expect(kept).toEqual(counted);
  });
});

/** `userId`'s own fills of `productId` in the store: place, fill, order, side. */
const ownFills = (userId: number, productId: number) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ place: number; fill_id: number; taker: boolean }>(
      `SELECT place, fill_id, taker FROM own_fills WHERE user_id = $1 AND product_id = $2
       ORDER BY place`,
      [userId, productId],
    );
    return rows.map((row) => `${row.place}: fill ${row.fill_id} ${row.taker ? 'taker' : 'maker'}`);
  });

const fillIds = (productId: number) =>
  sandbox.database.read(async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      'SELECT id FROM fills WHERE product_id = $1 ORDER BY id',
      [productId],
    );
    return rows.map((row) => Number(row.id));
  });

/**
 * A seller's offer taken by a buyer twice, then the buyer's own offer taken by the buyer: a
 * fill between two of its orders, which it sees twice.
 */
async function tradesWithOwnOffer() {
  const traded = await twoTrades();
  const { product_id } = traded;
  await place(traded.buyer.call, { product_id, side: 'sell', price: '100', quantity: '0.2' });
  await place(traded.buyer.call, { product_id, price: '100', quantity: '0.2' });
  await sandbox.sequencer.settled();
  return traded;
}

describe("a user's own fills in the store", () => {
  it('are written with their places by the sandbox, the store placing none of them', async () => {
    await withoutTriggers(['fills.own_fills_placed'], async () => {
      const { product_id, buyer, seller } = await tradesWithOwnOffer();
      const [first, second, own] = await fillIds(product_id);
      expect(await ownFills(buyer.userId, product_id)).toEqual([
        `1: fill ${first} taker`,
        `2: fill ${second} taker`,
        // The maker's side first: newest first, as pages list them, the taker's comes first.
        `3: fill ${own} maker`,
        `4: fill ${own} taker`,
      ]);
      expect(await ownFills(seller.userId, product_id)).toEqual([
        `1: fill ${first} maker`,
        `2: fill ${second} maker`,
      ]);
    });
  });

  it('take the places after those another writer left, and the sandbox goes on from there', async () => {
    const { product_id, buyer, seller } = await tradesWithOwnOffer();
    // Written beside the sandbox: the store's trigger places it.
    await sandbox.database.transaction((tx) =>
      tx.query(
        `INSERT INTO fills (product_id, taker_order_id, maker_order_id, taker_side, price,
           quantity, created_at)
         SELECT product_id, taker_order_id, maker_order_id, taker_side, price, quantity, created_at
         FROM fills WHERE product_id = $1 ORDER BY id LIMIT 1`,
        [product_id],
      ),
    );
    await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '0.1' });
    await place(buyer.call, { product_id, price: '100', quantity: '0.1' });
    await sandbox.sequencer.settled();
    const [first, second, own, beside, last] = await fillIds(product_id);
    expect(await ownFills(buyer.userId, product_id)).toEqual([
      `1: fill ${first} taker`,
      `2: fill ${second} taker`,
      `3: fill ${own} maker`,
      `4: fill ${own} taker`,
      `5: fill ${beside} taker`,
      `6: fill ${last} taker`,
    ]);
    expect(await ownFills(seller.userId, product_id)).toEqual([
      `1: fill ${first} maker`,
      `2: fill ${second} maker`,
      `3: fill ${beside} maker`,
      `4: fill ${last} maker`,
    ]);
  });
});

/** A product's fills as the store keeps them folded per second, beside the same from the fills. */
const foldedSeconds = (productId: number) =>
  sandbox.database.read(async (tx) => {
    const rows = async (sql: string) =>
      (await tx.query<Record<string, unknown>>(sql, [productId])).rows.map((row) =>
        JSON.stringify(row),
      );
    const columns = (
      low: string,
      high: string,
      volume: string,
      value: string,
      first: string,
      last: string,
    ) =>
      `trim_scale(${low})::text AS low, trim_scale(${high})::text AS high,
       trim_scale(${volume})::text AS volume, trim_scale(${value})::text AS value,
       ${first}::int AS first, ${last}::int AS last`;
    return {
      kept: await rows(
        `SELECT second::int, ${columns('low', 'high', 'volume', 'value', 'first_fill_id', 'last_fill_id')}
         FROM fill_seconds WHERE product_id = $1 ORDER BY second`,
      ),
      folded: await rows(
        `SELECT (created_at / 1000)::int AS second,
           ${columns('min(price)', 'max(price)', 'sum(quantity)', 'sum(price * quantity)', 'min(id)', 'max(id)')}
         FROM fills WHERE product_id = $1 GROUP BY created_at / 1000 ORDER BY 1`,
      ),
    };
  });

/** Trades of the two users on their product at three prices, one of them a second later. */
async function tradesAcrossSeconds(product_id: number, buyer: Trader, seller: Trader) {
  for (const price of ['90', '110']) {
    await place(seller.call, { product_id, side: 'sell', price, quantity: '0.25' });
    await place(buyer.call, { product_id, price, quantity: '0.25' });
  }
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await place(seller.call, { product_id, side: 'sell', price: '105', quantity: '0.5' });
  await place(buyer.call, { product_id, price: '105', quantity: '0.5' });
  await sandbox.sequencer.settled();
}

type Trader = Awaited<ReturnType<TradingSandbox['addUser']>>;

describe("a product's fills folded per second in the store", () => {
  it('are folded by the sandbox as it writes them, the store folding none', async () => {
    await withoutTriggers(['fills.fills_folded_per_second'], async () => {
      const { product_id, buyer, seller } = await trade('0.1');
      await tradesAcrossSeconds(product_id, buyer, seller);
      const { kept, folded } = await foldedSeconds(product_id);
      expect(kept.length).toBeGreaterThanOrEqual(2);
      expect(kept).toEqual(folded);
    });
  });

  it('fold what another writer adds beside the sandbox, and the sandbox goes on', async () => {
    const { product_id, buyer, seller } = await trade('0.1');
    await sandbox.database.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO fills (product_id, taker_order_id, maker_order_id, taker_side, price,
           quantity, created_at)
         SELECT product_id, taker_order_id, maker_order_id, taker_side, 1, quantity, created_at
         FROM fills WHERE product_id = $1 ORDER BY id LIMIT 1`,
        [product_id],
      );
    });
    await tradesAcrossSeconds(product_id, buyer, seller);
    const { kept, folded } = await foldedSeconds(product_id);
    expect(kept[0]).toContain('"low":"1"');
    expect(kept).toEqual(folded);
  });
});
