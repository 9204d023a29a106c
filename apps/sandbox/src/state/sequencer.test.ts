import { randomUUID } from 'node:crypto';
import {
  zCreateOAuthRequestResponse,
  zCreateOrderResponse,
  zGetOrderByClientIdResponse,
  zGetOrderResponse,
} from '@exchange-kit/contract/exchange/schemas';
import {
  zCreateSessionResponse,
  zIntentToTradeResponse,
} from '@exchange-kit/contract/partner/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defaultCredentials } from '../config.js';
import { postEntry } from '../exchange/ledger.js';
import { placeOrder } from '../exchange/orders.js';
import { addPartner, addProduct, addToken, addUser } from '../seeding.js';
import type { RunningSandbox } from '../server.js';
import { type Database, openDatabase } from '../store/database.js';
import { addLedgerHistory } from '../store/ledger-history.js';
import { migrate } from '../store/migrations.js';
import { readIntents } from '../store/partner-load.js';
import { loadSandboxState } from '../store/sandbox-load.js';
import { sandboxStorage } from '../store/sandbox-storage.js';
import { seed } from '../store/seed.js';
import {
  type Client,
  clientFor,
  demoClient,
  newUser,
  startTestSandbox,
  valid,
} from '../test-support.js';
import type { Intent } from './partner-state.js';
import { D } from './records.js';
import type { SandboxState } from './sandbox-state.js';
import { Sequencer } from './sequencer.js';
import { snapshot } from './snapshot.test-support.js';

/**
 * The state the store holds, with the intents memory holds read in: a start reads none, and
 * the store must hold no intent memory lacks.
 */
async function storedState(database: Database, memory: SandboxState): Promise<SandboxState> {
  return database.read(async (tx) => {
    const state = await loadSandboxState(tx);
    for (const intent of await readIntents(tx, [...memory.partner.intents.keys()])) {
      state.partner.addIntent(intent);
    }
    const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM qe_intents');
    expect(rows[0]?.n).toBe(state.partner.intents.size);
    return state;
  });
}

describe('the sandbox state and its store', () => {
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());

  it('stores every change of a burst of concurrent calls: the store reads back as memory', async () => {
    const product = await sandbox.sequencer.run((journal) =>
      addProduct(journal, { base: 'BTC', quote: 'JPY', margin: true }),
    );
    const traders = await Promise.all([newUser(sandbox), newUser(sandbox), newUser(sandbox)]);
    // A token's nonces must rise in the order calls arrive: one token per concurrent call.
    const as = async (user: { userId: number }) =>
      clientFor(sandbox, await sandbox.sequencer.run((journal) => addToken(journal, user.userId)));
    const order = (side: string, price: number, extra: Record<string, unknown> = {}) => ({
      order_type: 'limit',
      product_id: product,
      side,
      quantity: '0.01',
      price: String(price),
      ...extra,
    });
    // Resting orders on both sides, then crossing ones in parallel: fills, partial fills,
    // edits that lose their priority, a take profit that opens a conditional order, refusals.
    const [maker, taker, third] = traders;
    if (!maker || !taker || !third) throw new Error('three traders');
    const resting = await Promise.all(
      [1000, 1001, 1002, 1003].map((price, n) =>
        maker.call('POST', '/orders', {
          body: order('sell', price, { client_order_id: `s-${n}` }),
        }),
      ),
    );
    expect(resting.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const ids = resting.map((answer) => (answer.body as { id: number }).id);
    await maker.call('PUT', `/orders/${ids[0]}/update_tpsl`, { body: { take_profit: '800' } });
    const calls: [Client, string, string, Record<string, unknown>?][] = [
      [await as(taker), 'POST', '/orders', order('buy', 1001, { quantity: '0.015' })],
      [await as(third), 'POST', '/orders', { ...order('buy', 0), order_type: 'market' }],
      [await as(maker), 'PUT', `/orders/${ids[3]}`, { price: '999' }],
      [await as(maker), 'PUT', `/orders/${ids[2]}/cancel`],
      [await as(third), 'POST', '/orders', order('buy', 1, { quantity: '-1' })],
      [await as(taker), 'POST', '/orders', order('sell', 5000, { trading_type: 'margin' })],
      [await as(maker), 'PUT', '/orders/cancel_all', { side: 'buy' }],
    ];
    const answers = await Promise.all(
      calls.map(([call, method, path, body]) => call(method, path, body ? { body } : {})),
    );
    // Whichever way the race went, each call is answered: the market order fills or finds
    // the book empty, the negative quantity is refused.
    const statuses = answers.map((answer) => answer.status);
    expect(statuses[1]).toBeOneOf([200, 422]);
    expect(statuses.filter((_, n) => n !== 1)).toEqual([200, 200, 200, 422, 200, 200]);

    await sandbox.sequencer.settled();
    const stored = await storedState(sandbox.database, sandbox.sequencer.state);
    const memory = snapshot(sandbox.sequencer.state);
    expect(memory.tradedSeconds.length).toBeGreaterThanOrEqual(1);
    expect(memory.orders.some((row: { conditional: boolean }) => row.conditional)).toBe(true);
    expect(snapshot(stored)).toEqual(memory);
  });

  it('stores what a seeding command adds, the owners before the rows that name them', async () => {
    // One call, one batch: the user, its token and accounts, a partner, a product.
    const added = await sandbox.sequencer.run((journal) => {
      const user = addUser(journal, { now: Date.now() });
      addToken(journal, user.userId);
      return {
        user,
        partner: addPartner(journal),
        product: addProduct(journal, { base: 'ETH', quote: 'JPY' }),
      };
    });
    const stored = await storedState(sandbox.database, sandbox.sequencer.state);
    expect(stored.exchange.users.get(added.user.userId)?.id).toBe(added.user.userId);
    expect(stored.partner.applications.get(added.partner.partnerId)?.publicApiKey).toBe(
      added.partner.publicApiKey,
    );
    expect(stored.exchange.products.get(added.product)?.baseCurrency).toBe('ETH');
    expect(snapshot(stored)).toEqual(snapshot(sandbox.sequencer.state));
    const balance = await clientFor(sandbox, added.user)('GET', '/accounts/balance');
    expect(balance.status).toBe(200);
  });

  it('stores the partner and OAuth calls of a burst with the rest: the store reads back as memory', async () => {
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${sandbox.partnerUrl}/api/v1${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    const sessions = await Promise.all(
      [1, 2].map(() => post('/session', { public_api_key: sandbox.credentials.publicApiKey })),
    );
    const [first, second] = sessions.map(
      (session) => z.parse(zCreateSessionResponse, session.body).payload.session_id,
    );
    const trade = (session: string | undefined, extra: Record<string, unknown> = {}) =>
      post('/transaction/intent_to_trade', {
        session_id: session,
        side: 'buy',
        symbol: 'BTC/USDC',
        currency: 'BTC',
        quantity: '0.015',
        ...extra,
      });
    const trades = await Promise.all([
      trade(first, { client_ref: 'burst' }),
      trade(first, { client_ref: 'burst' }),
      trade(second),
      trade(second, { quantity: '-1' }),
      trade(second, { symbol: 'BTC/NOPE' }),
    ]);
    expect(trades.map((answer) => answer.status)).toEqual([202, 202, 202, 422, 422]);
    const transactionId = z.parse(zIntentToTradeResponse, trades[2]?.body).payload.transaction_id;
    const methods = await Promise.all(
      ['FUNDING', 'PAYOUT', 'NOPE'].map((direction) =>
        post('/settlement/method', {
          transaction_id: transactionId,
          direction,
          method: 'SERVICE_PARTNER_WALLET',
        }),
      ),
    );
    expect(methods.map((answer) => answer.status)).toEqual([202, 202, 422]);
    const oauth = await demoClient(sandbox)('POST', '/system/oauth_requests', { body: {} });
    expect(oauth.status).toBe(200);

    await sandbox.sequencer.settled();
    const stored = snapshot(await storedState(sandbox.database, sandbox.sequencer.state));
    const memory = snapshot(sandbox.sequencer.state);
    expect(memory.transactions.length).toBeGreaterThanOrEqual(2);
    expect(memory.instructions.length).toBeGreaterThanOrEqual(2);
    expect(memory.clocks.length).toBeGreaterThanOrEqual(1);
    expect(memory.oauthRequests.length).toBeGreaterThanOrEqual(1);
    expect(stored).toEqual(memory);
  });

  it('reads back text with tabs, line breaks and backslashes as it was written', async () => {
    const user = await newUser(sandbox);
    const clientOrderId = 'tab\there\nline\\back\\\\slash\r\u000b';
    const placed = valid(
      zCreateOrderResponse,
      await user.call('POST', '/orders', {
        body: {
          order_type: 'limit',
          product_id: 1,
          side: 'buy',
          quantity: '0.01',
          price: '1',
          client_order_id: clientOrderId,
        },
      }),
    );
    await sandbox.sequencer.reload();
    const read = valid(
      zGetOrderByClientIdResponse,
      await user.call('GET', `/orders/client:${encodeURIComponent(clientOrderId)}`),
    );
    expect(read).toMatchObject({ id: placed.id, client_order_id: clientOrderId });
  });

  it('gives rows written to the store directly ids after every id a call has used', async () => {
    const user = await newUser(sandbox);
    const placed = valid(
      zCreateOrderResponse,
      await user.call('POST', '/orders', {
        body: { order_type: 'limit', product_id: 1, side: 'buy', quantity: '0.01', price: '1' },
      }),
    );
    const direct = await sandbox.database.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: number }>(
        `INSERT INTO orders (user_id, product_id, order_type, side, trading_type, quantity, price,
           status, leverage_level, funding_currency, reserved_currency, created_at, updated_at)
         VALUES ($1, 1, 'limit', 'buy', 'spot', 0.01, 1, 'cancelled', 1, 'JPY', 'JPY', 0, 0)
         RETURNING id`,
        [user.userId],
      );
      return Number(rows[0]?.id);
    });
    expect(direct).toBeGreaterThan(Number(placed.id));
    const next = valid(
      zCreateOrderResponse,
      await user.call('POST', '/orders', {
        body: { order_type: 'limit', product_id: 1, side: 'buy', quantity: '0.01', price: '1' },
      }),
    );
    expect(Number(next.id)).toBeGreaterThan(direct);
    // Closed, it is the store's to answer for.
    const read = valid(zGetOrderResponse, await user.call('GET', `/orders/${direct}`));
    expect(read.status).toBe('cancelled');
  });
});

/** A limit buy of 0.01 on product 1 by `userId`, decided without HTTP. */
const buyAt = (sequencer: Sequencer, userId: number, price: string) =>
  sequencer.run((journal) =>
    placeOrder(
      journal,
      userId,
      { order_type: 'limit', product_id: 1, side: 'buy', quantity: '0.01', price },
      Date.now(),
    ),
  );

describe('a batch the store refuses', () => {
  let db: Database;

  beforeAll(async () => {
    db = await openDatabase({ memory: true });
    await migrate(db);
  });
  afterAll(() => db.close());

  it('commits none of its statements', async () => {
    await expect(
      db.apply(
        `INSERT INTO loan_book_levels (currency, side, rate, amount) VALUES ('BTC', 'bid', 1, 1);
         INSERT INTO loan_book_levels (currency, side, rate, amount) VALUES ('BTC', 'nope', 1, 1)`,
      ),
    ).rejects.toThrow();
    const { rows } = await db.read((tx) => tx.query('SELECT * FROM loan_book_levels'));
    expect(rows).toEqual([]);
  });

  it('fails the call whose rows it refuses, and memory goes back to what the store holds', async () => {
    const credentials = {
      ...defaultCredentials,
      tokenId: 'batch-token',
      tokenSecret: 'batch-secret',
      publicApiKey: 'pk_b',
    };
    const sequencer = await seed(db, credentials, Date.now());
    const user = await sequencer.run((journal) => addUser(journal, { now: Date.now() }));
    const before = snapshot(sequencer.state);
    const place = (price: string) => buyAt(sequencer, user.userId, price);
    // The store now refuses any new fill, so the batch carrying this crossing order fails.
    await db.transaction((tx) =>
      tx.query('ALTER TABLE fills ADD CONSTRAINT refuse_fills CHECK (false) NOT VALID'),
    );
    await expect(place('9600000')).rejects.toMatchObject({
      name: 'Error',
      cause: expect.objectContaining({ message: expect.stringMatching(/refuse_fills/) }),
    });
    await sequencer.run(() => undefined);
    const { next: nextBefore, ...kept } = before;
    const { next, ...now } = snapshot(sequencer.state);
    expect(now).toEqual(kept);
    // The ids the refused call took are not handed out again.
    expect(next.order).toBeGreaterThan(nextBefore.order);
    const { next: _stored, ...stored } = snapshot(await storedState(db, sequencer.state));
    expect(stored).toEqual(now);
    await db.transaction((tx) => tx.query('ALTER TABLE fills DROP CONSTRAINT refuse_fills'));
    // And the exchange goes on.
    const resting = await place('100');
    expect(sequencer.state.exchange.orders.get(resting.id)?.status).toBe('live');
  });
});

describe('closing with a call in flight', () => {
  it('waits for the call to be answered before it closes the store', async () => {
    const logged: string[] = [];
    const sandbox = await startTestSandbox({
      logDestination: { write: (line: string) => void logged.push(line) },
    });
    const app = demoClient(sandbox);
    const user = await newUser(sandbox);
    const request = valid(
      zCreateOAuthRequestResponse,
      await app('POST', '/system/oauth_requests', { body: {} }),
    );
    await user.call('POST', new URL(request.api_challenge_href).pathname);
    const oauth = {
      publicId: request.oauth_request_public_id,
      privateId: request.oauth_request_private_id,
    };
    // Hold the store, so the OAuth grant lookup of the call waits in its queue.
    let release = () => {};
    const held = sandbox.database.read(() => new Promise<void>((resolve) => (release = resolve)));
    const inFlight = app('GET', '/accounts', { oauth }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = sandbox.close();
    // Let the closing reach the store's queue, behind the call's lookup, before releasing.
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await Promise.all([held, inFlight, closed]);
    // Closed means nothing is left running: anything logged from here was still in flight.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(logged).toEqual([]);
  });
});

/**
 * A seeded store in memory, with a Sequencer on it that reclaims after `rowsPerReclaim` rows
 * and looks at the planner's statistics after `rowsPerAnalysis`.
 */
async function reclaimingStore(rowsPerReclaim: number, rowsPerAnalysis = 1_000_000) {
  const db = await openDatabase({ memory: true });
  await migrate(db);
  const credentials = {
    ...defaultCredentials,
    tokenId: 'vacuum-token',
    tokenSecret: 'vacuum-secret',
    publicApiKey: 'pk_v',
  };
  await seed(db, credentials, Date.now());
  const sequencer = await Sequencer.open(sandboxStorage(db), { rowsPerReclaim, rowsPerAnalysis });
  const user = await sequencer.run((journal) => addUser(journal, { now: Date.now() }));
  const lastVacuum = async (table = 'accounts') =>
    (
      await db.read((tx) =>
        tx.query<{ at: Date | null }>(
          'SELECT last_vacuum AS at FROM pg_stat_user_tables WHERE relname = $1',
          [table],
        ),
      )
    ).rows[0]?.at ?? null;
  return { db, sequencer, user, lastVacuum };
}

describe('a store without autovacuum', () => {
  it('has the room of replaced rows reclaimed as writes go on', async () => {
    const { db, sequencer, user, lastVacuum } = await reclaimingStore(30);
    try {
      const order = (price: string) => buyAt(sequencer, user.userId, price);
      await order('1');
      await sequencer.settled();
      expect(await lastVacuum()).toBeNull();
      for (let n = 2; n < 20; n++) await order(String(n));
      await sequencer.settled();
      // The account each order reserves from is rewritten; the orders are only added.
      expect(await lastVacuum()).not.toBeNull();
      expect(await lastVacuum('orders')).toBeNull();
    } finally {
      await db.close();
    }
  });

  it('counts no ledger entry towards a pass: entries are only added, and replace no row', async () => {
    const { db, sequencer, user, lastVacuum } = await reclaimingStore(30);
    try {
      const deposits = (count: number) =>
        sequencer.run((journal) => {
          for (let n = 0; n < count; n++) {
            const source = null;
            postEntry(journal, {
              userId: user.userId,
              currency: 'JPY',
              amount: new D(1),
              sourceAction: 'funding',
              source,
              now: Date.now(),
            });
          }
        });
      // 40 entries, and one account row they rewrite.
      await deposits(40);
      await sequencer.settled();
      expect(await lastVacuum()).toBeNull();
    } finally {
      await db.close();
    }
  });
});

/** How many times the store analysed `table`, once it did at least `atLeast` times or after a while. */
async function analyses(db: Database, table: string, atLeast = 0): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = (
      await db.read((tx) =>
        tx.query<{ count: string }>(
          'SELECT analyze_count AS count FROM pg_stat_user_tables WHERE relname = $1',
          [table],
        ),
      )
    ).rows;
    const count = Number(row?.count ?? 0);
    if (count >= atLeast || Date.now() > deadline) return count;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `count` deposits of 1 JPY to `userId`, each a ledger entry, in one call. */
const deposits = (sequencer: Sequencer, userId: number, count: number) =>
  sequencer.run((journal) => {
    for (let n = 0; n < count; n++) {
      postEntry(journal, {
        userId,
        currency: 'JPY',
        amount: new D(1),
        sourceAction: 'funding',
        source: null,
        now: Date.now(),
      });
    }
  });

describe('a store without autoanalyze', () => {
  it('has the statistics of the tables that grew gathered again as writes go on', async () => {
    const { db, sequencer, user } = await reclaimingStore(1_000_000, 30);
    try {
      expect(await analyses(db, 'ledger_entries')).toBe(0);
      // Entries with none analysed yet: the first look analyses them.
      await deposits(sequencer, user.userId, 40);
      await sequencer.settled();
      expect(await analyses(db, 'ledger_entries', 1)).toBe(1);
      // Fewer new rows than the table held when analysed, and 50 more: the next look leaves it.
      await deposits(sequencer, user.userId, 40);
      await sequencer.settled();
      await sequencer.analyze();
      expect(await analyses(db, 'ledger_entries')).toBe(1);
      await deposits(sequencer, user.userId, 100);
      await sequencer.settled();
      expect(await analyses(db, 'ledger_entries', 2)).toBe(2);
    } finally {
      await db.close();
    }
  });

  it('leaves a small table whose rows are rewritten in place to the statistics it has', async () => {
    const { db, sequencer, user } = await reclaimingStore(1_000_000);
    try {
      await deposits(sequencer, user.userId, 1);
      await sequencer.settled();
      await sequencer.analyze();
      const first = await analyses(db, 'accounts', 1);
      expect(first).toBeGreaterThanOrEqual(1);
      // The user's account rewritten a hundred times: far more changes than the table has rows.
      for (let n = 0; n < 100; n++) await deposits(sequencer, user.userId, 1);
      await sequencer.settled();
      await sequencer.analyze();
      expect(await analyses(db, 'accounts')).toBe(first);
      // Entries are added: that table has grown, and is analysed again.
      expect(await analyses(db, 'ledger_entries', 2)).toBe(2);
    } finally {
      await db.close();
    }
  });

  it('has a store written in bulk analysed once asked, and only the tables that need it', async () => {
    const { db, sequencer, user } = await reclaimingStore(1_000_000);
    try {
      await db.transaction((tx) =>
        addLedgerHistory(tx, { entries: 2_000, userId: user.userId, currency: 'JPY', since: 0 }),
      );
      await sequencer.analyze();
      expect(await analyses(db, 'ledger_entries')).toBe(1);
      const [stats] = (
        await db.read((tx) =>
          tx.query<{ rows: number }>(
            "SELECT reltuples AS rows FROM pg_class WHERE relname = 'ledger_entries'",
          ),
        )
      ).rows;
      expect(Number(stats?.rows)).toBeGreaterThanOrEqual(2_000);
      await sequencer.analyze();
      expect(await analyses(db, 'ledger_entries')).toBe(1);
    } finally {
      await db.close();
    }
  });
});

/** A one-time intent of `partnerId` paying 1 USDC to the partner's wallet. */
const anIntent = (partnerId: number): Intent => ({
  id: randomUUID(),
  partnerId,
  strategy: 'ONE_TO_ONE_ATTEMPTED',
  payoutMethod: 'SERVICE_PARTNER_WALLET',
  payoutCurrency: 'USDC',
  payoutQuantity: '1',
  fundingMethod: null,
  fundingCurrency: null,
  fundingQuantity: null,
  partnerOrderId: null,
  partnerRef: null,
  partnerTags: null,
  expiresAt: null,
  createdAt: 0,
  consumedAt: null,
});

describe('stored rows a call reads in', () => {
  let db: Database;

  beforeAll(async () => {
    db = await openDatabase({ memory: true });
    await migrate(db);
    await seed(
      db,
      {
        ...defaultCredentials,
        tokenId: 'reads-token',
        tokenSecret: 'reads-secret',
        publicApiKey: 'pk_r',
      },
      0,
    );
  });
  afterAll(() => db.close());

  /** The sandbox's own storage, whose intents take `delayMs` to read, or fail to. */
  const slowStorage = (delayMs: number, fails = false) => {
    const storage = sandboxStorage(db);
    return {
      ...storage,
      loadIntents: async (ids: readonly string[]) => {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (fails) throw new Error('the store is gone');
        return storage.loadIntents(ids);
      },
    };
  };

  /** An intent only the store holds: written by a sequencer of its own. */
  const storedIntent = async (): Promise<Intent> => {
    const maker = await Sequencer.open(sandboxStorage(db));
    const [partnerId] = maker.state.partner.applications.keys();
    const intent = anIntent(partnerId as number);
    await maker.run((journal) => journal.add('intent', intent));
    await maker.settled();
    return intent;
  };

  /** The sandbox's own storage, whose reads of intents wait until `open` is called. */
  const blockedStorage = () => {
    const storage = sandboxStorage(db);
    const read: string[][] = [];
    let open = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    return {
      read,
      open,
      storage: {
        ...storage,
        loadIntents: async (ids: readonly string[]) => {
          read.push([...ids]);
          await opened;
          return storage.loadIntents(ids);
        },
      },
    };
  };

  it('refuses an id no intent has without reading the store, and reads one it holds', async () => {
    const intent = await storedIntent();
    const blocked = blockedStorage();
    blocked.open();
    const sequencer = await Sequencer.open(blocked.storage);
    await sequencer.intentIdsRead();
    const seen = (id: string) =>
      sequencer.run(() => sequencer.state.partner.intents.get(id)?.id ?? null, { intents: [id] });
    expect(await seen(randomUUID())).toBeNull();
    expect(blocked.read).toEqual([]);
    expect(await seen(intent.id)).toBe(intent.id);
    expect(blocked.read).toEqual([[intent.id]]);
  });

  it('reads every id named while the ids of the stored intents are not in yet', async () => {
    const intent = await storedIntent();
    const sequencer = await Sequencer.open({
      ...sandboxStorage(db),
      loadIntentIds: () => new Promise<string[]>(() => {}),
    });
    const seen = await sequencer.run(() => sequencer.state.partner.intents.get(intent.id)?.id, {
      intents: [intent.id],
    });
    expect(seen).toBe(intent.id);
  });

  it('decides every call that needs no pending read while one is pending', async () => {
    const intent = await storedIntent();
    const blocked = blockedStorage();
    const sequencer = await Sequencer.open(blocked.storage);
    await sequencer.intentIdsRead();
    const decided: string[] = [];
    const reads = { intents: [intent.id] };
    const reading = sequencer.run(() => decided.push('reads'), reads, 'token 1');
    const sameIntent = sequencer.run(() => decided.push('same intent'), reads);
    const sameNonce = sequencer.run(() => decided.push('same nonce scope'), undefined, 'token 1');
    await Promise.all([
      sequencer.run(() => decided.push('plain')),
      sequencer.run(() => decided.push('unknown id'), { intents: [randomUUID()] }, 'token 2'),
    ]);
    expect(decided).toEqual(['plain', 'unknown id']);
    blocked.open();
    await Promise.all([reading, sameIntent, sameNonce]);
    expect(decided).toEqual(['plain', 'unknown id', 'reads', 'same intent', 'same nonce scope']);
    expect(blocked.read).toEqual([[intent.id]]);
  });

  it('reads in an intent memory held when the state is read back from the store meanwhile', async () => {
    const sequencer = await Sequencer.open(sandboxStorage(db));
    const [partnerId] = sequencer.state.partner.applications.keys();
    const intent = anIntent(partnerId as number);
    await sequencer.run((journal) => journal.add('intent', intent));
    await sequencer.settled();
    const reloading = sequencer.reload();
    const seen = sequencer.run(() => sequencer.state.partner.intents.get(intent.id)?.id, {
      intents: [intent.id],
    });
    await reloading;
    expect(await seen).toBe(intent.id);
  });

  it('fails only the call whose read fails', async () => {
    const { id } = await storedIntent();
    const sequencer = await Sequencer.open(slowStorage(10, true));
    const decided: string[] = [];
    const reading = sequencer.run(() => decided.push('reads'), { intents: [id] });
    const after = sequencer.run(() => decided.push('after'));
    await expect(reading).rejects.toThrow('the store is gone');
    await expect(after).resolves.toBe(1);
    expect(decided).toEqual(['after']);
  });

  it('keeps the row memory holds over an older copy the store answers with', async () => {
    const maker = await Sequencer.open(sandboxStorage(db));
    const [partnerId] = maker.state.partner.applications.keys();
    const intent = anIntent(partnerId as number);
    await maker.run((journal) => journal.add('intent', intent));
    await maker.settled();
    // A store whose reads lag: every read answers the intent as it was first read.
    const storage = sandboxStorage(db);
    let firstRead: Promise<Intent[]> | undefined;
    const sequencer = await Sequencer.open({
      ...storage,
      loadIntents: async (ids) => {
        firstRead ??= storage.loadIntents(ids);
        return structuredClone(await firstRead);
      },
    });
    expect(sequencer.state.partner.intents.has(intent.id)).toBe(false);
    const reads = { intents: [intent.id] };
    const consumed = sequencer.run((journal) => {
      const held = sequencer.state.partner.intents.get(intent.id) as Intent;
      journal.touch('intent', held).consumedAt = 1;
    }, reads);
    const seen = sequencer.run(
      () => sequencer.state.partner.intents.get(intent.id)?.consumedAt,
      reads,
    );
    await consumed;
    expect(await seen).toBe(1);
  });
});
