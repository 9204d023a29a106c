import { zCreateOrderResponse, zListOrdersResponse } from '@exchange-kit/contract/exchange/schemas';
import * as schemas from '@exchange-kit/contract/partner/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defaultCredentials } from '../config.js';
import { placeOrder } from '../exchange/orders.js';
import { freshDatabase } from '../postgres.test-support.js';
import { addToken, addUser } from '../seeding.js';
import type { RunningSandbox } from '../server.js';
import { type Database, openDatabase, writeLockKey } from '../store/database.js';
import { migrate } from '../store/migrations.js';
import { seed } from '../store/seed.js';
import { clientFor, newUser, startTestSandbox, valid } from '../test-support.js';
import {
  btcPurchase,
  call,
  migratedStore,
  newSession,
  type StoredTestStore,
  seedPartner,
  storedCount,
} from '../testing/partner-calls.js';

// The attacker's fault: a rule of the store that memory does not know, so a call decided in
// memory is refused only when its batch is written.
const poisonOrders = `ALTER TABLE orders ADD CONSTRAINT poison
  CHECK (client_order_id IS NULL OR client_order_id NOT LIKE 'poison%') NOT VALID`;
const poisonTransactions = `ALTER TABLE qe_transactions ADD CONSTRAINT poison
  CHECK (client_ref IS NULL OR client_ref NOT LIKE 'poison%') NOT VALID`;

const isPoison = (n: number) => n % 5 === 2;

/**
 * Holds the store's writes for `ms`, so that the calls decided meanwhile are stored in one
 * batch, as they are under load: PGlite runs one unit of work at a time, and PostgreSQL's
 * writes wait for the lock this takes. Resolves once the writes are held.
 */
async function holdWrites(db: Database, ms: number): Promise<{ released: Promise<void> }> {
  let held = () => {};
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const released = db.read(async (tx) => {
    if (process.env.SANDBOX_TEST_DATABASE_URL) {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [writeLockKey]);
    }
    held();
    await new Promise((resolve) => setTimeout(resolve, ms));
  });
  await holding;
  // In an object: an async function's promise would wait for a promise it returned.
  return { released };
}

describe('a write the store refuses fails only its own call', () => {
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    // The refused calls are logged as internal errors: kept out of the test's output.
    sandbox = await startTestSandbox({ logDestination: { write: () => undefined } });
  });
  afterAll(() => sandbox.close());

  it("leaves the user's other orders, decided on the same account, placed", async () => {
    const user = await newUser(sandbox);
    // A token a call, so that calls sent side by side never race for one token's nonces.
    const tokens = await sandbox.sequencer.run((journal) =>
      Array.from({ length: 30 }, () => addToken(journal, user.userId)),
    );
    await sandbox.database.transaction((tx) => tx.query(poisonOrders));
    const { released } = await holdWrites(sandbox.database, 1000);
    const answers = await Promise.all(
      tokens.map((token, n) =>
        clientFor(sandbox, token)('POST', '/orders', {
          body: {
            order_type: 'limit',
            product_id: 1,
            side: 'buy',
            quantity: '0.01',
            price: String(1_000_000 + n),
            client_order_id: `${isPoison(n) ? 'poison' : 'fine'}-${n}`,
          },
        }),
      ),
    );
    await released;
    const fine = answers.filter((_, n) => !isPoison(n));
    expect(fine.map((answer) => answer.status)).toEqual(fine.map(() => 200));
    expect(answers.filter((_, n) => isPoison(n)).map((answer) => answer.status)).toEqual(
      [2, 7, 12, 17, 22, 27].map(() => 500),
    );
    const placed = fine.map((answer) => valid(zCreateOrderResponse, answer).client_order_id);
    expect(placed.sort()).toEqual(
      tokens
        .map((_, n) => n)
        .filter((n) => !isPoison(n))
        .map((n) => `fine-${n}`)
        .sort(),
    );

    // What memory answers is what the store holds: read back, the same.
    const listed = async () => {
      const list = valid(zListOrdersResponse, await user.call('GET', '/orders?limit=100'));
      const accounts = await user.call('GET', '/accounts');
      return { orders: list.models, accounts: accounts.body };
    };
    const inMemory = await listed();
    expect(inMemory.orders.map((order) => order.client_order_id).sort()).toEqual(placed.sort());
    await sandbox.sequencer.reload();
    expect(await listed()).toEqual(inMemory);
  });
});

describe('a transaction the store refuses', () => {
  let db: StoredTestStore;

  beforeAll(async () => {
    db = await migratedStore();
  });
  afterAll(() => db.close());

  it('fails no transaction of the other sessions of its partner', async () => {
    const partner = await seedPartner(db);
    const sessions: string[] = [];
    for (let n = 0; n < 20; n++) sessions.push(await newSession(db, partner.publicApiKey));
    await db.transaction((tx) => tx.query(poisonTransactions));
    const settled = await Promise.allSettled(
      sessions.map((sessionId, n) =>
        call(db, 'intentToTrade', {
          body: btcPurchase(sessionId, {
            client_ref: `${isPoison(n) ? 'poison' : 'fine'}-${n}`,
          }),
        }),
      ),
    );
    settled.forEach((outcome, n) => {
      if (isPoison(n)) {
        expect(outcome).toMatchObject({
          status: 'rejected',
          reason: { message: 'The store refused the changes of this call' },
        });
      } else {
        expect(outcome.status).toBe('fulfilled');
        if (outcome.status === 'fulfilled') {
          z.parse(schemas.zIntentToTradeResponse, outcome.value.body);
        }
      }
    });
    const fine = sessions.filter((_, n) => !isPoison(n)).length;
    expect(await storedCount(db, 'qe_transactions')).toBe(fine);
    expect(db.sequencer.state.partner.transactions.size).toBe(fine);
  });
});

/**
 * A store of a test's own, seeded and poisoned: memory's, or a database of its own on the
 * PostgreSQL of the second pass.
 */
async function poisonedStore(tokenId: string) {
  const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;
  const db = await openDatabase(
    serverUrl ? { databaseUrl: await freshDatabase(serverUrl) } : { memory: true },
  );
  try {
    await migrate(db);
    const credentials = {
      ...defaultCredentials,
      tokenId,
      tokenSecret: `${tokenId}-secret`,
      publicApiKey: `pk_${tokenId}`,
    };
    const sequencer = await seed(db, credentials, Date.now());
    await db.transaction((tx) => tx.query(poisonOrders));
    return { db, sequencer };
  } catch (error) {
    await db.close();
    throw error;
  }
}

describe('calls decided on a batch the store then refuses', () => {
  it('are decided again without its refused call, and kept', async () => {
    const { db, sequencer } = await poisonedStore('again');
    try {
      const user = await sequencer.run((journal) => addUser(journal, { now: Date.now() }));
      const place = (clientOrderId: string, price: string) =>
        sequencer.run((journal) =>
          placeOrder(
            journal,
            user.userId,
            {
              order_type: 'limit',
              product_id: 1,
              side: 'buy',
              quantity: '0.01',
              price,
              client_order_id: clientOrderId,
            },
            Date.now(),
          ),
        );

      const { released } = await holdWrites(db, 500);
      const refused = place('poison-first', '1000000');
      // Its batch is being written (held) before the next calls are decided, on its account.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const later = [place('fine-1', '1000001'), place('fine-2', '1000002')];
      await released;
      await expect(refused).rejects.toThrow('The store refused the changes of this call');
      const placed = await Promise.all(later);
      const { exchange } = sequencer.state;
      expect(placed.map((order) => exchange.orders.get(order.id))).toEqual(placed);
      expect(placed.map((order) => order.status)).toEqual(['live', 'live']);
      expect(exchange.orderByClientId(user.userId, 'poison-first')).toBeUndefined();

      // Memory holds what the store does.
      const account = () => sequencer.state.exchange.account(user.userId, 'JPY');
      const inMemory = { reserved: account()?.reserved.toFixed(), orders: placed.length };
      await sequencer.reload();
      expect({
        reserved: account()?.reserved.toFixed(),
        orders: sequencer.state.exchange.ordersByUser.of(user.userId).length,
      }).toEqual(inMemory);
    } finally {
      await db.close();
    }
  });
});

describe('a batch stored while the next one, later refused, closes its rows', () => {
  it('keeps in memory the order the refused call had filled', async () => {
    const { db, sequencer } = await poisonedStore('closing');
    try {
      const [maker, taker] = await sequencer.run((journal) => [
        addUser(journal, { now: Date.now() }),
        addUser(journal, { now: Date.now() }),
      ]);
      // Inside the demo market's spread: only the maker's offer is taken.
      const price = '9500000';
      const place = (userId: number, side: 'buy' | 'sell', quantity: string, id?: string) =>
        sequencer.run((journal) =>
          placeOrder(
            journal,
            userId,
            {
              order_type: 'limit',
              product_id: 1,
              side,
              quantity,
              price,
              ...(id === undefined ? {} : { client_order_id: id }),
            },
            Date.now(),
          ),
        );
      const offer = await place(maker.userId, 'sell', '0.02');

      const { released } = await holdWrites(db, 500);
      // Takes half the offer; its batch is written (held) before the next call is decided.
      const half = place(taker.userId, 'buy', '0.01');
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Takes the rest, closing the offer in memory, in a batch the store then refuses.
      const refused = place(taker.userId, 'buy', '0.01', 'poison-rest');
      await released;
      await half;
      await expect(refused).rejects.toThrow('The store refused the changes of this call');

      const { exchange } = sequencer.state;
      expect(exchange.orders.get(offer.id)).toMatchObject({ status: 'partially_filled' });
      expect(exchange.book(1).sell.best()?.id).toBe(offer.id);
      // The rest is taken by the next call, and the offer is stored filled.
      const rest = await place(taker.userId, 'buy', '0.01');
      expect(rest.status).toBe('filled');
      const stored = await sequencer.read((history) =>
        history.order(maker.userId, { id: String(offer.id) }),
      );
      expect(stored).toMatchObject({ status: 'filled' });
    } finally {
      await db.close();
    }
  });
});
