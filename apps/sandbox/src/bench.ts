/**
 * `@exchange-kit/sandbox/bench`: what the benchmarks need beyond the sandbox's interfaces —
 * the sandbox in the bench's own process, tokens written straight to its store, and the
 * store's ceiling measured without HTTP. Tests use `./testing`; users, the command.
 */
import { creditDeposit } from './exchange/deposits.js';
import { houseUserId } from './exchange/ledger.js';
import { orderHandlers, placeOrder } from './exchange/orders.js';
import { freshDatabase } from './postgres.test-support.js';
import { addToken } from './seeding.js';
import { type RunningSandbox, type SandboxOptions, startSandbox } from './server.js';
import type { Journal } from './state/journal.js';
import { D } from './state/records.js';
import { openDatabase, type StoreOptions } from './store/database.js';
import { addFillHistory } from './store/fill-history.js';
import { addLedgerHistory } from './store/ledger-history.js';
import { addOrderHistory } from './store/order-history.js';
import { addPositionHistory } from './store/position-history.js';
import { demoUserId, secondDemoUserId } from './store/seed.js';

export type { RunningSandbox, SandboxOptions };
export { startSandbox };

/** A fresh, empty database on a PostgreSQL server, for a sandbox of its own. */
export const freshPostgresDatabase: (serverUrl: string) => Promise<string> = freshDatabase;

/**
 * `orders` cancelled orders of the demo user added straight to a store a sandbox has set up
 * and no longer runs on: the history a long load test leaves, to measure a start on it.
 */
export async function addDemoOrderHistory(store: StoreOptions, orders: number): Promise<void> {
  const database = await openDatabase(store);
  try {
    await database.transaction((tx) =>
      addOrderHistory(tx, { orders, userId: demoUserId, productId: 1, since: Date.now() - orders }),
    );
  } finally {
    await database.close();
  }
}

/**
 * `entries` ledger entries of the demo user in XRP added straight to a store a sandbox has set
 * up and no longer runs on: the ledger a long run leaves, to measure a start and pages on it.
 */
export async function addDemoLedgerHistory(store: StoreOptions, entries: number): Promise<void> {
  const database = await openDatabase(store);
  try {
    await database.transaction((tx) =>
      addLedgerHistory(tx, {
        entries,
        userId: demoUserId,
        currency: 'XRP',
        since: Date.now() - entries,
      }),
    );
  } finally {
    await database.close();
  }
}

/**
 * `fills` fills on product 1 between the demo user's orders there (`addDemoOrderHistory`
 * first), one `every` milliseconds (a minute unless told) up to now, added straight to a store
 * a sandbox has set up and no longer runs on: the trades a long run leaves, of which a start
 * reads the last day.
 */
export async function addDemoFillHistory(
  store: StoreOptions,
  fills: number,
  every = 60_000,
): Promise<void> {
  const database = await openDatabase(store);
  try {
    await database.transaction((tx) =>
      addFillHistory(tx, {
        fills,
        userId: demoUserId,
        productId: 1,
        since: Date.now() - fills * every,
        every,
      }),
    );
  } finally {
    await database.close();
  }
}

/**
 * `positions` closed margin positions of the demo user on product 1, each with the loan from
 * the house it repaid, added straight to a store a sandbox has set up and no longer runs on:
 * the trades a long run of margin fills leaves, which a start leaves in the store.
 */
export async function addDemoPositionHistory(
  store: StoreOptions,
  positions: number,
): Promise<void> {
  const database = await openDatabase(store);
  try {
    await database.transaction((tx) =>
      addPositionHistory(tx, {
        positions,
        userId: demoUserId,
        lenderId: houseUserId,
        productId: 1,
        currency: 'JPY',
        since: Date.now() - positions,
      }),
    );
  } finally {
    await database.close();
  }
}

/** A new API token of the demo user, written to the store. */
export function addDemoToken(
  sandbox: RunningSandbox,
): Promise<{ tokenId: string; tokenSecret: string }> {
  return sandbox.sequencer.run((journal) => addToken(journal, demoUserId));
}

/**
 * Edits of the demo user's live orders for `seconds`, each decided on the state and its
 * changes (the order, the account, the nonce) committed to the store, one at a time, with no
 * HTTP: the most the store lets the sandbox write. Edits per second.
 */
export async function storeCeiling(sandbox: RunningSandbox, seconds: number): Promise<number> {
  const handler = orderHandlers.editOrder;
  if (!handler) throw new Error('no editOrder handler');
  const ids = sandbox.sequencer.state.exchange.ordersByUser
    .of(demoUserId)
    .filter((order) => order.status === 'live')
    .slice(0, 50)
    .map((order) => String(order.id));
  if (ids.length === 0) throw new Error('no live order of the demo user to edit');
  const caller = { kind: 'token' as const, tokenId: 'ceiling', userId: demoUserId };
  const started = performance.now();
  let done = 0;
  while (performance.now() - started < seconds * 1000) {
    const orderId = ids[done % ids.length] as string;
    const price = String(8_000_000 + (done % 900_000));
    await sandbox.sequencer.run((journal) => {
      journal.nonce('token:ceiling', BigInt(done + 1));
      return handler({
        operationId: 'editOrder',
        path: { order_id: orderId },
        query: {},
        body: { price },
        caller,
        journal,
        now: Date.now(),
      });
    });
    done++;
  }
  return done / seconds;
}

/** A new API token of the second demo user, who makes the book the matching rows take from. */
export function addSecondDemoToken(
  sandbox: RunningSandbox,
): Promise<{ tokenId: string; tokenSecret: string }> {
  return sandbox.sequencer.run((journal) => addToken(journal, secondDemoUserId));
}

/**
 * A limit order of the second demo user, who makes the book of the bench's fills, on product
 * 1: an offer to sell by default, or a bid.
 */
const quote = (journal: Journal, price: number, quantity: string, side: 'buy' | 'sell' = 'sell') =>
  placeOrder(
    journal,
    secondDemoUserId,
    { order_type: 'limit', product_id: 1, side, price: String(price), quantity },
    Date.now(),
  );

/**
 * `count` offers of the second demo user, each of `quantity` BTC of product 1, placed in one
 * call, the newest the lowest priced from `lowest` up: a deep book that one order can take
 * whole. What they sell is credited to the user first. Resolves once they are stored.
 */
export async function addDeepOffers(
  sandbox: RunningSandbox,
  offers: { count: number; quantity: string; lowest: number },
): Promise<void> {
  const { count, quantity, lowest } = offers;
  await sandbox.sequencer.run((journal) => {
    const amount = new D(quantity).times(count).toFixed();
    creditDeposit(journal, { userId: secondDemoUserId, currency: 'BTC', amount }, Date.now());
    for (let n = count - 1; n >= 0; n--) quote(journal, lowest + n, quantity);
  });
}

/**
 * `count` open margin positions of the demo user on product 1, half long and half short, all
 * opened at one price, a thousand to a call: the longs take the second demo user's offer at
 * `price` (after the demo asks below it), the shorts its bid there. Then `moves` more offers
 * of the second demo user, a yen apart above it: each a fill that moves the mark price, which
 * reaches no position. Resolves once they are stored.
 */
export async function addOpenPositions(
  sandbox: RunningSandbox,
  positions: { count: number; price: number; moves: number },
): Promise<void> {
  const { count, price, moves } = positions;
  const longs = Math.ceil(count / 2);
  const shorts = count - longs;
  const margin = (journal: Journal, side: 'buy' | 'sell', quantity: string) =>
    placeOrder(
      journal,
      demoUserId,
      {
        order_type: 'market',
        product_id: 1,
        side,
        quantity,
        trading_type: 'margin',
        leverage_level: 2,
      },
      Date.now(),
    );
  const opened = async (side: 'buy' | 'sell', total: number) => {
    for (let made = 0; made < total; made += 1000) {
      await sandbox.sequencer.run((journal) => {
        for (let n = made; n < Math.min(total, made + 1000); n++) margin(journal, side, '0.0001');
      });
    }
  };
  await sandbox.sequencer.run((journal) => {
    const btc = new D(longs).times('0.0001').plus(1).toFixed();
    creditDeposit(journal, { userId: secondDemoUserId, currency: 'BTC', amount: btc }, Date.now());
    const jpy = String(Math.ceil(count * 0.0001 * price));
    creditDeposit(journal, { userId: demoUserId, currency: 'JPY', amount: jpy }, Date.now());
    creditDeposit(journal, { userId: secondDemoUserId, currency: 'JPY', amount: jpy }, Date.now());
    quote(journal, price, (longs * 0.0001).toFixed(4));
  });
  // The demo asks lie below `price`: taken first, by one position of their own.
  const below = offeredBelow(sandbox, price);
  if (below !== '0') await sandbox.sequencer.run((journal) => margin(journal, 'buy', below));
  await opened('buy', longs);
  // Placed once the asks at and below `price` are taken, so that it crosses none of them.
  await sandbox.sequencer.run((journal) =>
    quote(journal, price, (shorts * 0.0001).toFixed(4), 'buy'),
  );
  await opened('sell', shorts);
  await sandbox.sequencer.run((journal) => {
    for (let above = 1; above <= moves; above++) quote(journal, price + above, '0.0001');
  });
}

/** The quantity product 1's book offers below `price`, as a decimal string. */
function offeredBelow(sandbox: RunningSandbox, price: number): string {
  let units = 0;
  for (const order of sandbox.sequencer.state.exchange.book(1).sell.bestFirst()) {
    if (order.price.gte(price)) break;
    units += Math.round(order.quantity.minus(order.filledQuantity).toNumber() * 1e4);
  }
  return String(units / 1e4);
}

/** A limit order's body as `POST /orders` takes it. */
type TakerBuy = Parameters<NonNullable<typeof orderHandlers.createOrder>>[0]['body'] & {
  price: string;
};

/**
 * `takerBuy` placed by the demo user, `inFlight` at a time for `seconds`, each taking part of
 * the second demo user's offers at once, decided and stored as a call of `POST /orders` is
 * (its nonce too) but with no HTTP: the most the margin row of the bench could reach, given
 * what a fill decides and stores. The offers are placed first, ten of 1 BTC at the buy's
 * price that the second demo user is credited with, so the store must be one no other measure
 * has used. Fills per second.
 */
export async function marginFillFloor(
  sandbox: RunningSandbox,
  run: {
    seconds: number;
    inFlight: number;
    takerBuy: TakerBuy;
  },
): Promise<number> {
  const { seconds, inFlight, takerBuy: body } = run;
  const handler = orderHandlers.createOrder;
  if (!handler) throw new Error('no createOrder handler');
  await sandbox.sequencer.run((journal) => {
    creditDeposit(journal, { userId: secondDemoUserId, currency: 'BTC', amount: '10' }, Date.now());
    for (let n = 0; n < 10; n++) quote(journal, Number(body.price), '1');
  });
  const until = performance.now() + seconds * 1000;
  let filled = 0;
  const lane = async (lane: number) => {
    const caller = { kind: 'token' as const, tokenId: `floor-${lane}`, userId: demoUserId };
    for (let nonce = 1n; performance.now() < until; nonce++) {
      const answer = await sandbox.sequencer.run((journal) => {
        journal.nonce(`token:${caller.tokenId}`, nonce);
        return handler({
          operationId: 'createOrder',
          path: {},
          query: {},
          body,
          caller,
          journal,
          now: Date.now(),
        });
      });
      const status = 'body' in answer ? answer.body.status : 'not answered at once';
      if (status !== 'filled') throw new Error(`a floor buy did not fill: ${status}`);
      filled++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, (_, n) => lane(n)));
  return filled / ((performance.now() - started) / 1000);
}
