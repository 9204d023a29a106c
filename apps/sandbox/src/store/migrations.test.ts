import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultCredentials } from '../config.js';
import { demoFees } from '../demo-market.js';
import { freshDatabase } from '../postgres.test-support.js';
import { startTestSandbox } from '../test-support.js';
import { freshProduct, getOrder, place, storedTrading } from '../testing/trading.js';
import { type Database, openDatabase } from './database.js';
import { addFillHistory } from './fill-history.js';
import { migrateAsFormerRunner } from './legacy-store.test-support.js';
import { migrate } from './migrations.js';
import { addOrderHistory } from './order-history.js';
import { demoUserId, marketMakerId, seed } from './seed.js';
import { storedHistory } from './stored-history.js';
import { tradeHistory } from './trade-history.js';

const allMigrations = [
  '0001.do.exchange.sql',
  '0002.do.partner.sql',
  '0003.do.settlement.sql',
  '0004.do.positions.sql',
  '0005.do.no-enum-copies.sql',
  '0006.do.oauth-denials.sql',
  '0007.do.ledger.sql',
  '0008.do.house-may-owe.sql',
  '0009.do.withdrawals.sql',
  '0010.do.position-ids.sql',
  '0011.do.trading-accounts.sql',
  '0012.do.loan-bids.sql',
  '0013.do.history-indexes.sql',
  '0014.do.loans.sql',
  '0015.do.history-reads.sql',
  '0016.do.loan-relending.sql',
  '0017.do.own-fill-places.sql',
  '0018.do.entries-placed-by-the-sandbox.sql',
  '0019.do.order-counts.sql',
  '0020.do.history-written-unchecked.sql',
  '0021.do.counts-kept-by-the-sandbox.sql',
  '0022.do.own-fills-placed-by-the-sandbox.sql',
  '0023.do.margin-history-in-the-store.sql',
  '0024.do.fills-of-an-order-by-id.sql',
  '0025.do.margin-counts-kept-by-the-sandbox.sql',
  '0026.do.orders-and-entries-written-lighter.sql',
  '0027.do.trades-placed.sql',
  '0028.do.loans-placed.sql',
  '0029.do.withdrawals-by-state.sql',
  '0030.do.fills-folded-per-second.sql',
  '0031.do.orders-fee-charged.sql',
  '0032.do.trades-close-fee.sql',
  '0033.do.fill-seconds-value.sql',
  '0034.do.sandbox-clock.sql',
  '0035.do.fill-pnl.sql',
  '0036.do.trades-of-an-order.sql',
  '0037.do.mark-prices.sql',
  '0038.do.trades-closed-cost.sql',
];

/** The migrations after `name`, in order: what a store migrated up to it has still to apply. */
const after = (name: string) => allMigrations.slice(allMigrations.indexOf(name) + 1);

const opened: Database[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

/** An empty store: PGlite in memory, or a new database when the tests run on PostgreSQL. */
async function emptyStore(): Promise<Database> {
  const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;
  const db = serverUrl
    ? await openDatabase({ databaseUrl: await freshDatabase(serverUrl) })
    : await openDatabase({ memory: true });
  opened.push(db);
  return db;
}

const recorded = (db: Database) =>
  db.read(async (tx) => {
    const { rows } = await tx.query<{ version: number; name: string | null; md5: string | null }>(
      'SELECT version, name, md5 FROM schemaversion WHERE version > 0 ORDER BY version',
    );
    return rows.map((row) => ({ ...row, version: Number(row.version) }));
  });

const hasTable = (db: Database, name: string) =>
  db.read(
    async (tx) =>
      (await tx.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [name]))
        .rows[0]?.found !== null,
  );

/**
 * The constraints and indexes that list values of a column: a copy of an enum of the specs,
 * which a change of the spec would leave stale.
 */
const valueLists = (db: Database) =>
  db.read(async (tx) => {
    const { rows } = await tx.query<{ name: string; definition: string }>(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
         WHERE contype = 'c' AND connamespace = current_schema()::regnamespace
       UNION ALL
       SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()`,
    );
    return rows.filter((row) => /ARRAY\[|\bIN \(/i.test(row.definition)).map((row) => row.name);
  });

const T0 = 1_716_000_000_000;

/**
 * `db` as a sandbox of its store's version wrote to it: without the counts the store has no
 * table for yet, which the migration that adds each table counts from the rows themselves.
 */
async function asOfItsVersion(db: Database): Promise<Database> {
  const { rows } = await db.read((tx) =>
    tx.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'",
    ),
  );
  const held = new Set(rows.map((row) => `exchange_write_${row.name}`));
  const writable = (statement: string) => held.has(/^EXECUTE (\w+)\(/.exec(statement)?.[1] ?? '');
  return {
    transaction: (work) => db.transaction(work),
    read: (work) => db.read(work),
    apply: (statements, prepared = {}) =>
      db.apply(
        statements
          .split(';\n')
          .filter((statement) => !statement.startsWith('EXECUTE') || writable(statement))
          .join(';\n'),
        Object.fromEntries(Object.entries(prepared).filter(([name]) => held.has(name))),
      ),
    close: () => db.close(),
  };
}

/**
 * Columns newer than some stores these tests migrate, which the sandbox writes: the places of
 * positions (0027) and loans (0028), the fees of an order (0031) and of a trade's closes
 * (0032), and what a trade's closed part cost (0038).
 */
const newerColumns: [string, string][] = [
  ['positions', 'user_place'],
  ['loans', 'lender_place'],
  ['loans', 'borrower_place'],
  ['orders', 'fee_charged'],
  ['positions', 'close_fee'],
  ['positions', 'order_id'],
  ['positions', 'closed_cost'],
];

/**
 * The demo market, then fills between the demo user's own orders on two products and one
 * where the market maker's order takes one of theirs: fills seen by one side or by both.
 */
/** The tables of newer migrations a start reads, with columns enough to be read. */
const startTables = [
  ['sandbox_clock', 'id integer, offset_ms bigint'],
  ['sandbox_mark_prices', 'product_id bigint, price numeric, fills bigint'],
] as const;

async function seedWithFills(db: Database): Promise<void> {
  // Columns the sandbox writes now that the store's version lacks are there while it seeds (it
  // opens no position and no loan, and fills no order), and gone before the store migrates.
  const lacking: [string, string][] = [];
  for (const [table, column] of newerColumns) {
    const { rows } = await db.read((tx) =>
      tx.query<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM information_schema.columns
           WHERE table_name = $1 AND column_name = $2) AS found`,
        [table, column],
      ),
    );
    if (!rows[0]?.found) lacking.push([table, column]);
  }
  for (const [table, column] of lacking) {
    await db.apply(`ALTER TABLE ${table} ADD COLUMN ${column} bigint`);
  }
  // What test control set is read at start, the clock (0034) and the marks (0037): a store
  // older than them has none, and is given the tables while it seeds.
  const absent: string[] = [];
  for (const [table, columns] of startTables) {
    const { rows } = await db.read((tx) =>
      tx.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [table]),
    );
    if (rows[0]?.found) continue;
    absent.push(table);
    await db.apply(`CREATE TABLE ${table} (${columns})`);
  }
  const sequencer = await seed(await asOfItsVersion(db), defaultCredentials, T0);
  await sequencer.settled();
  for (const [table, column] of lacking) {
    await db.apply(`ALTER TABLE ${table} DROP COLUMN ${column}`);
  }
  for (const table of absent) await db.apply(`DROP TABLE ${table}`);
  await db.transaction(async (tx) => {
    for (const productId of [1, 2]) {
      await addOrderHistory(tx, { orders: 5, userId: demoUserId, productId, since: T0 });
      await addFillHistory(tx, { fills: 30, userId: demoUserId, productId, since: T0, every: 1 });
    }
    await tx.query(
      `INSERT INTO fills (product_id, taker_order_id, maker_order_id, taker_side, price,
         quantity, created_at)
       SELECT 1, (SELECT min(id) FROM orders WHERE user_id = $1 AND product_id = 1),
         (SELECT max(id) FROM orders WHERE user_id = $2 AND product_id = 1), 'sell', 1000, 0.01, $3`,
      [marketMakerId, demoUserId, T0 + 100],
    );
  });
}

const ownFillRows = (db: Database) =>
  db.read(
    async (tx) =>
      (await tx.query('SELECT * FROM own_fills ORDER BY user_id, product_id, place')).rows,
  );

describe('migrate', () => {
  it('applies every migration once, in order, each recorded with its checksum', async () => {
    const db = await emptyStore();
    expect(await migrate(db)).toEqual(allMigrations);
    expect(await migrate(db)).toEqual([]);
    const rows = await recorded(db);
    // Each recorded by the version and the name its file gives.
    const named = allMigrations.map((file) => file.replace(/^0*(\d+)\.do\.(.+)\.sql$/, '$1:$2'));
    expect(rows.map((row) => `${row.version}:${row.name}`)).toEqual(named);
    for (const row of rows) expect(row.md5).toMatch(/^[0-9a-f]{32}$/);
  });

  it('leaves no list of enum values in a CHECK constraint or an index', async () => {
    const db = await emptyStore();
    await migrate(db);
    expect(await valueLists(db)).toEqual([]);
    // The checks that are no copy of the spec stay: ranges, and columns that go together.
    const { rows } = await db.read((tx) =>
      tx.query<{ name: string }>(
        "SELECT conname AS name FROM pg_constraint WHERE contype = 'c' ORDER BY conname",
      ),
    );
    expect(rows.map((row) => row.name)).toEqual(
      expect.arrayContaining([
        'orders_quantity_check',
        'qe_assets_check',
        'accounts_check',
        'oauth_requests_one_answer',
      ]),
    );
  });

  it('takes over a store that the former runner migrated, and applies only what is new', async () => {
    const db = await emptyStore();
    await migrateAsFormerRunner(db);
    expect(await valueLists(db)).toEqual(expect.arrayContaining(['orders_status_check']));
    await db.transaction((tx) =>
      tx.query("UPDATE qe_prices SET price = 70000 WHERE base = 'BTC' AND quote = 'USDC'"),
    );
    // The former runner applied the first four.
    expect(await migrate(db)).toEqual(after('0004.do.positions.sql'));
    expect(await hasTable(db, 'schema_migrations')).toBe(false);
    expect(await valueLists(db)).toEqual([]);
    const fresh = await emptyStore();
    await migrate(fresh);
    // Recorded as if postgrator had applied them: same versions, names and checksums.
    expect(await recorded(db)).toEqual(await recorded(fresh));
    const { rows } = await db.read((tx) =>
      tx.query<{ price: string }>(
        "SELECT price::text AS price FROM qe_prices WHERE base = 'BTC' AND quote = 'USDC'",
      ),
    );
    expect(rows).toEqual([{ price: '70000' }]);
    expect(await migrate(db)).toEqual([]);
  });

  it('refuses a store whose applied migration was edited since', async () => {
    const db = await emptyStore();
    await migrate(db);
    await db.transaction((tx) =>
      tx.query("UPDATE schemaversion SET md5 = 'edited' WHERE version = 2"),
    );
    await expect(migrate(db)).rejects.toThrow('MD5 checksum failed for migration [2]');
  });

  it('refuses a store the former runner recorded a migration in that this sandbox lacks', async () => {
    const db = await emptyStore();
    await migrateAsFormerRunner(db);
    await db.transaction((tx) =>
      tx.query("INSERT INTO schema_migrations (version, applied_at) VALUES ('0009_future', 0)"),
    );
    await expect(migrate(db)).rejects.toThrow(
      'The store records migration 0009_future, which this sandbox does not have',
    );
    // Nothing was taken over: the former bookkeeping is still whole.
    expect(await hasTable(db, 'schema_migrations')).toBe(true);
    expect(await hasTable(db, 'schemaversion')).toBe(false);
  });

  it('refuses a store that records a migration this sandbox lacks', async () => {
    const db = await emptyStore();
    await migrate(db);
    // A version past every migration this sandbox has, however many it has.
    const future = 1000;
    await db.transaction((tx) =>
      tx.query("INSERT INTO schemaversion (version, name, md5) VALUES ($1, 'future', 'x')", [
        future,
      ]),
    );
    await expect(migrate(db)).rejects.toThrow(
      `The store records migration ${future}, which this sandbox does not have`,
    );
  });

  it('explains each balance stored before the ledger with one funding entry', async () => {
    const db = await emptyStore();
    await migrateAsFormerRunner(db);
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO currencies (code, name, currency_type, symbol, depositable, withdrawable,
           assets_precision, minimum_withdrawal, withdrawal_fee, minimum_order_quantity,
           exchange_rate)
         VALUES ('JPY', 'Yen', 'fiat', '¥', true, true, 0, 1000, 300, 1, 1)`,
      );
      await tx.query(
        `INSERT INTO users (id, email, first_name, last_name, country, currency, language,
           kyc_status, app_vendor_id, affiliate_code, email_confirmed_at_s)
         VALUES (7, 'a@b.invalid', 'A', 'B', 'JP', 'JPY', 'en', 'approved', 7, 'x', 0)`,
      );
      await tx.query(
        `INSERT INTO accounts (user_id, currency, balance, reserved_balance, address)
         VALUES (7, 'JPY', 1425.00015, 1425.00015, 'a')`,
      );
    });
    await migrate(db);
    const { rows } = await db.read((tx) =>
      tx.query(
        `SELECT user_id, currency, amount::text AS amount, balance::text AS balance,
           source_action FROM ledger_entries`,
      ),
    );
    expect(rows).toEqual([
      {
        user_id: 7,
        currency: 'JPY',
        amount: '1425.00015',
        balance: '1425.00015',
        source_action: 'funding',
      },
    ]);
  });

  it('places the fills of a store made before own fills had places as it places new ones', async () => {
    const older = await emptyStore();
    await migrateAsFormerRunner(older, allMigrations.indexOf('0016.do.loan-relending.sql') + 1);
    await seedWithFills(older);
    expect(await migrate(older)).toEqual(after('0016.do.loan-relending.sql'));
    const fresh = await emptyStore();
    await migrate(fresh);
    await seedWithFills(fresh);

    expect(await ownFillRows(older)).toEqual(await ownFillRows(fresh));
    const page = (db: Database, userId: number, offset: number) =>
      storedHistory(db).reads.ownFills(userId, 1, offset, 7);
    for (const offset of [0, 7, 56, 61]) {
      expect(await page(older, demoUserId, offset)).toEqual(await page(fresh, demoUserId, offset));
    }
    // Newest first: the market maker's fill, then each of the others twice, the taker's first.
    const first = await page(older, demoUserId, 0);
    expect(first.total).toBe(61);
    const [taken, mine, theirs] = first.rows;
    expect(taken?.order.id).toBe(taken?.fill.makerOrderId);
    expect(mine?.fill.id).toBe(theirs?.fill.id);
    expect(mine?.order.id).toBe(mine?.fill.takerOrderId);
    expect(theirs?.order.id).toBe(theirs?.fill.makerOrderId);
    expect((await page(older, demoUserId, 56)).rows).toHaveLength(5);
    expect(await page(older, marketMakerId, 0)).toMatchObject({
      total: 1,
      rows: [{ fill: { id: taken?.fill.id }, order: { id: taken?.fill.takerOrderId } }],
    });
  });

  it('counts the orders of a store made before the counts as it counts new ones', async () => {
    const older = await emptyStore();
    await migrateAsFormerRunner(
      older,
      allMigrations.indexOf('0018.do.entries-placed-by-the-sandbox.sql') + 1,
    );
    await seedWithFills(older);
    expect(await migrate(older)).toEqual(after('0018.do.entries-placed-by-the-sandbox.sql'));
    const fresh = await emptyStore();
    await migrate(fresh);
    await seedWithFills(fresh);
    const counts = (db: Database) =>
      db.read(
        async (tx) =>
          (
            await tx.query(
              `SELECT user_id, status, product_id, trading_type, funding_currency, orders
               FROM order_counts WHERE orders <> 0 ORDER BY 1, 2, 3, 4, 5`,
            )
          ).rows,
      );
    const counted = await older.read(
      async (tx) =>
        (
          await tx.query(
            `SELECT user_id, status, product_id, trading_type, funding_currency,
               count(*) AS orders FROM orders GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
          )
        ).rows,
    );
    expect(counted.length).toBeGreaterThan(1);
    expect(await counts(older)).toEqual(counted);
    expect(await counts(fresh)).toEqual(counted);
  });

  it('folds per second the fills of a store made before it kept them so, as new ones are', async () => {
    const older = await emptyStore();
    await migrateAsFormerRunner(
      older,
      allMigrations.indexOf('0029.do.withdrawals-by-state.sql') + 1,
    );
    await seedWithFills(older);
    expect(await migrate(older)).toEqual(after('0029.do.withdrawals-by-state.sql'));
    const fresh = await emptyStore();
    await migrate(fresh);
    await seedWithFills(fresh);
    const seconds = (db: Database) =>
      db.read(
        async (tx) =>
          (
            await tx.query(
              `SELECT product_id::int, second::text, trim_scale(low)::text AS low,
                 trim_scale(high)::text AS high, trim_scale(volume)::text AS volume,
                 trim_scale(value)::text AS value, first_fill_id::int, last_fill_id::int
               FROM fill_seconds ORDER BY product_id, second`,
            )
          ).rows,
      );
    const kept = await seconds(older);
    // Thirty fills a millisecond apart on each product, and the market maker's a little later.
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(kept).toEqual(await seconds(fresh));
    const folded = await older.read(
      async (tx) =>
        (
          await tx.query(
            `SELECT product_id::int, (created_at / 1000)::text AS second,
               trim_scale(min(price))::text AS low, trim_scale(max(price))::text AS high,
               trim_scale(sum(quantity))::text AS volume,
               trim_scale(sum(price * quantity))::text AS value, min(id)::int AS first_fill_id,
               max(id)::int AS last_fill_id
             FROM fills GROUP BY 1, 2 ORDER BY 1, 2`,
          )
        ).rows,
    );
    expect(kept).toEqual(folded);
  });

  it('places the loans of a store made before loans had places, one list per party and currency', async () => {
    const older = await emptyStore();
    await migrateAsFormerRunner(older, allMigrations.indexOf('0027.do.trades-placed.sql') + 1);
    // Lent and borrowed by turns, one to oneself, one of another currency; ids not in the
    // order they were written.
    const loans: [id: number, lender: number, borrower: number, currency: string][] = [
      [7, 1, 2, 'JPY'],
      [3, 2, 1, 'JPY'],
      [9, 1, 1, 'JPY'],
      [4, 1, 2, 'BTC'],
      [12, 3, 1, 'JPY'],
      [5, 1, 2, 'JPY'],
    ];
    await older.transaction(async (tx) => {
      for (const [id, lender, borrower, currency] of loans) {
        await tx.query(
          `INSERT INTO loans (id, position_id, bid_id, lender_id, borrower_id, currency, rate,
             quantity, repaid, interest, charged_until, fund_reloaned, status, created_at,
             updated_at)
           VALUES ($1, NULL, NULL, $2, $3, $4, 0.001, 1, 0, 0, 0, true, 'open', 0, 0)`,
          [id, lender, borrower, currency],
        );
      }
    });
    expect(await migrate(older)).toEqual(after('0027.do.trades-placed.sql'));

    const placed = await older.read(async (tx) => {
      const { rows } = await tx.query<Record<string, string | number>>(
        'SELECT id, lender_place, borrower_place FROM loans ORDER BY id',
      );
      return rows.map((row) => [row.id, row.lender_place, row.borrower_place].map(Number));
    });
    // Each party's loans of a currency counted in the order of ids.
    expect(placed).toEqual([
      [3, 1, 1],
      [4, 1, 1],
      [5, 2, 2],
      [7, 3, 3],
      [9, 4, 4],
      [12, 1, 5],
    ]);
    const page = await tradeHistory(older).loans(1, 'JPY', 1, 3);
    expect(page).toMatchObject({ total: 5, rows: [{ id: 9 }, { id: 7 }, { id: 5 }] });
  });

  it('gives the orders and trades of a store made before it kept fees what their fills charged', async () => {
    const sandbox = await startTestSandbox();
    try {
      const trading = storedTrading(sandbox);
      const product_id = await freshProduct(trading, { margin: true, ...demoFees });
      const [maker, taker] = [await trading.addUser(), await trading.addUser()];
      const at = { product_id, price: '1425' };
      // A maker filled twice, a spot and a margin taker, and a user on both sides of a fill.
      await place(maker.call, { ...at, side: 'sell', quantity: '1.00000015' });
      await place(taker.call, { ...at, side: 'buy', quantity: '0.4' });
      const long = await place(taker.call, {
        ...at,
        side: 'buy',
        quantity: '0.60000015',
        trading_type: 'margin',
        leverage_level: 2,
      });
      await place(maker.call, { ...at, side: 'sell', quantity: '0.3' });
      await place(maker.call, { ...at, side: 'buy', quantity: '0.3' });
      // The long closes 0.2 into the maker's bid, as a taker.
      await place(maker.call, { ...at, side: 'buy', quantity: '0.2' });
      const tradeId = (await getOrder(taker.call, long.id)).trade_id;
      await taker.call('PUT', `/trades/${tradeId}/close`, { body: { closed_quantity: '0.2' } });
      await sandbox.sequencer.settled();
      const charged = () =>
        sandbox.database.read(async (tx) => {
          const kept = async (table: string, column: string) =>
            (
              await tx.query(
                `SELECT id::int, trim_scale(${column})::text AS fee FROM ${table}
                 WHERE product_id = $1 ORDER BY id`,
                [product_id],
              )
            ).rows;
          return {
            orders: await kept('orders', 'fee_charged'),
            trades: await kept('positions', 'close_fee'),
          };
        });
      const written = await charged();
      expect(written.orders.map((row) => row.fee)).toEqual([
        '0.712500106875',
        '0.855',
        '1.282500320625',
        '0.21375',
        '0.64125',
        '0.1425',
        '0.4275',
      ]);
      expect(written.trades).toEqual([{ id: tradeId, fee: '0.4275' }]);
      // The same store as one made before the columns, then migrated.
      await sandbox.database.apply(
        'ALTER TABLE orders DROP COLUMN fee_charged; ALTER TABLE positions DROP COLUMN close_fee',
      );
      for (const migration of ['0031.do.orders-fee-charged.sql', '0032.do.trades-close-fee.sql']) {
        await sandbox.database.apply(
          await readFile(new URL(`./migrations/${migration}`, import.meta.url), 'utf8'),
        );
      }
      expect(await charged()).toEqual(written);
    } finally {
      await sandbox.close();
    }
  });

  it('gives the trades of a store made before it kept closed costs the share of their opening cost', async () => {
    const sandbox = await startTestSandbox();
    try {
      const trading = storedTrading(sandbox);
      const product_id = await freshProduct(trading, { margin: true });
      const [trader, other] = [await trading.addUser(), await trading.addUser()];
      const at = { product_id, price: '100', trading_type: 'margin', leverage_level: 2 };
      await place(other.call, { product_id, price: '90', side: 'sell', quantity: '0.3' });
      const long = await place(trader.call, { ...at, quantity: '0.3' });
      const tradeId = (await getOrder(trader.call, long.id)).trade_id;
      await place(other.call, { product_id, price: '95', quantity: '1' });
      const closing = { body: { closed_quantity: '0.1' } };
      expect((await trader.call('PUT', `/trades/${tradeId}/close`, closing)).status).toBe(200);
      await sandbox.sequencer.settled();
      const kept = () =>
        sandbox.database.read(async (tx) => {
          const { rows } = await tx.query<{ cost: string }>(
            'SELECT trim_scale(closed_cost)::text AS cost FROM positions WHERE id = $1',
            [tradeId],
          );
          return rows.map((row) => row.cost);
        });
      const written = await kept();
      // A third of 0.3 bought at 90.
      expect(written).toEqual(['9']);
      await sandbox.database.apply('ALTER TABLE positions DROP COLUMN closed_cost');
      const migration = '0038.do.trades-closed-cost.sql';
      await sandbox.database.apply(
        await readFile(new URL(`./migrations/${migration}`, import.meta.url), 'utf8'),
      );
      expect(await kept()).toEqual(written);
    } finally {
      await sandbox.close();
    }
  });

  it('writes orders, fills, ledger entries, positions and loans without a foreign key to check per row', async () => {
    const db = await emptyStore();
    await migrate(db);
    const foreignKeys = (table: string) =>
      db.read(async (tx) => {
        const { rows } = await tx.query<{ name: string }>(
          `SELECT conname AS name FROM pg_constraint WHERE contype = 'f' AND conrelid = $1::regclass
           ORDER BY conname`,
          [table],
        );
        return rows.map((row) => row.name);
      });
    expect(await foreignKeys('ledger_entries')).toEqual([]);
    expect(await foreignKeys('fills')).toEqual([]);
    // Accounts keep theirs: a batch updates them, which checks no key, and seldom adds one.
    expect(await foreignKeys('accounts')).toEqual([
      'accounts_currency_fkey',
      'accounts_user_id_fkey',
    ]);
    expect(await foreignKeys('orders')).toEqual([]);
    expect(await foreignKeys('positions')).toEqual([]);
    expect(await foreignKeys('loans')).toEqual([]);
  });
});
