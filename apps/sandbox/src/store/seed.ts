import type { DemoCredentials } from '../config.js';
import {
  demoCurrencies,
  demoLoanBook,
  demoProducts,
  demoUserId,
  houseRecord,
  marketMakerId,
  type NewProduct,
  newApiToken,
  placeDemoBook,
  productRecord,
  secondDemoUserId,
  startingBalances,
  startingFunding,
  userRecord,
} from '../demo-market.js';
import { depositAddress } from '../exchange/ledger.js';
import type { NewUser } from '../seeding.js';
import type { User } from '../state/exchange-state.js';
import { Sequencer } from '../state/sequencer.js';
import type { Database, Queryable } from './database.js';
import { sandboxStorage } from './sandbox-storage.js';

export { demoUserId, marketMakerId, type NewProduct, secondDemoUserId } from '../demo-market.js';

/** An API token of a user, in the seed's transaction. */
async function addToken(
  db: Queryable,
  userId: number,
  options: { tokenId?: string; tokenSecret?: string } = {},
): Promise<{ tokenId: string; tokenSecret: string }> {
  const drawn = newApiToken(userId);
  const tokenId = options.tokenId ?? drawn.tokenId;
  const tokenSecret = options.tokenSecret ?? drawn.tokenSecret;
  await db.query('INSERT INTO api_tokens (id, user_id, secret) VALUES ($1, $2, $3)', [
    tokenId,
    userId,
    tokenSecret,
  ]);
  return { tokenId, tokenSecret };
}

/** A user row; `ON CONFLICT DO NOTHING` keeps one that is there already. */
async function insertUser(db: Queryable, user: User): Promise<void> {
  await db.query(
    `INSERT INTO users (id, email, first_name, last_name, country, currency, language, kyc_status,
       app_vendor_id, affiliate_code, email_confirmed_at_s)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
    [
      user.id,
      user.email,
      user.firstName,
      user.lastName,
      user.country,
      user.currency,
      user.language,
      user.kycStatus,
      user.appVendorId,
      user.affiliateCode,
      user.emailConfirmedAtS,
    ],
  );
}

/**
 * A user of the seed with an API token and funded accounts in every currency (a running
 * sandbox is given users through `seeding.ts`).
 */
async function addUser(
  db: Queryable,
  options: {
    userId?: number;
    firstName?: string;
    tokenId?: string;
    tokenSecret?: string;
    /** When the starting balances are funded, in ms; now unless told. */
    now?: number;
  } = {},
): Promise<NewUser> {
  // Users added after the seed are numbered from 2001, clear of the seeded ones.
  const { rows } = await db.query<{ id: number }>(
    `SELECT coalesce($1::bigint, (SELECT coalesce(max(id), 2000) + 1 FROM users WHERE id > 2000))
       AS id`,
    [options.userId ?? null],
  );
  const userId = rows[0]?.id;
  if (userId === undefined) throw new Error('No user id');
  await insertUser(db, userRecord(userId, options.firstName));
  const { tokenId, tokenSecret } = await addToken(db, userId, options);
  for (const [currency, balance] of Object.entries(startingBalances)) {
    await db.query(
      'INSERT INTO accounts (user_id, currency, balance, address) VALUES ($1, $2, $3, $4)',
      [userId, currency, balance, depositAddress(userId, currency)],
    );
    await db.query(
      `INSERT INTO ledger_entries (user_id, currency, amount, balance, source_action, created_at)
       VALUES ($1, $2, $3, $3, $4, $5)`,
      [userId, currency, balance, startingFunding, options.now ?? Date.now()],
    );
  }
  return { userId, tokenId, tokenSecret };
}

/** A product of the seed, with no orders yet. */
async function addProduct(db: Queryable, product: NewProduct): Promise<number> {
  const record = productRecord(0, product);
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO products (id, product_type, code, base_currency, quoted_currency, taker_fee,
       maker_fee, tick_size, disabled, margin_enabled, cfd_enabled, perpetual_enabled, perpetual)
     VALUES (coalesce($1, (SELECT coalesce(max(id), 0) + 1 FROM products)), $2, $3, $4, $5, $6,
       $7, $8, $9, $10, $11, $12, $13)
     RETURNING id`,
    [
      product.id ?? null,
      record.productType,
      record.code,
      record.baseCurrency,
      record.quotedCurrency,
      record.takerFee.toString(),
      record.makerFee.toString(),
      record.tickSize.toString(),
      record.disabled,
      record.marginEnabled,
      record.cfdEnabled,
      record.perpetualEnabled,
      record.perpetual,
    ],
  );
  const id = rows[0]?.id;
  if (id === undefined) throw new Error('Product insert returned no id');
  return id;
}

async function seedMarket(db: Queryable, now: number): Promise<void> {
  for (const currency of demoCurrencies()) {
    await db.query(
      `INSERT INTO currencies (code, name, currency_type, symbol, depositable, withdrawable,
         assets_precision, minimum_withdrawal, withdrawal_fee, minimum_order_quantity, exchange_rate)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        currency.code,
        currency.name,
        currency.currencyType,
        currency.symbol,
        currency.depositable,
        currency.withdrawable,
        currency.assetsPrecision,
        currency.minimumWithdrawal.toString(),
        currency.withdrawalFee.toString(),
        currency.minimumOrderQuantity.toString(),
        currency.exchangeRate.toString(),
      ],
    );
  }
  for (const product of demoProducts) await addProduct(db, product);
  for (const [currency, side, rate, amount] of demoLoanBook) {
    await db.query(
      'INSERT INTO loan_book_levels (currency, side, rate, amount) VALUES ($1, $2, $3, $4)',
      [currency, side, rate, amount],
    );
  }
  await addUser(db, { userId: marketMakerId, firstName: 'Market maker', now });
}

/** A demo user with the configured token, added on the first start and kept in step after. */
async function ensureDemoUser(
  tx: Queryable,
  userId: number,
  firstName: string,
  tokenId: string,
  tokenSecret: string,
  now: number,
): Promise<void> {
  const { rows } = await tx.query('SELECT 1 FROM users WHERE id = $1', [userId]);
  if (rows.length === 0) {
    await addUser(tx, { userId, firstName, tokenId, tokenSecret, now });
    return;
  }
  await tx.query(
    `INSERT INTO api_tokens (id, user_id, secret) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET secret = EXCLUDED.secret
       WHERE api_tokens.user_id = EXCLUDED.user_id`,
    [tokenId, userId, tokenSecret],
  );
}

/**
 * Seeds the market (currencies, products, loan book, a market maker's resting book) once,
 * and makes sure the demo users, their API tokens and the partner application match the
 * configured credentials on every start. Resolves to the exchange, loaded from the store.
 */
export async function seed(
  db: Database,
  credentials: DemoCredentials,
  now: number,
): Promise<Sequencer> {
  const seeded = await db.transaction(async (tx) => {
    const { rows } = await tx.query('SELECT 1 FROM products LIMIT 1');
    if (rows.length === 0) await seedMarket(tx, now);
    // Stores seeded before the ledger have no house yet.
    await insertUser(tx, houseRecord());
    await ensureDemoUser(tx, demoUserId, 'Demo', credentials.tokenId, credentials.tokenSecret, now);
    await ensureDemoUser(
      tx,
      secondDemoUserId,
      'Second demo',
      credentials.secondTokenId,
      credentials.secondTokenSecret,
      now,
    );
    await tx.query(
      `INSERT INTO partner_applications (user_id, public_api_key, name)
       VALUES ($1, $2, 'Demo partner') ON CONFLICT (public_api_key) DO NOTHING`,
      [demoUserId, credentials.publicApiKey],
    );
    return rows.length === 0;
  });
  const sequencer = await Sequencer.open(sandboxStorage(db));
  if (seeded) await placeDemoBook(sequencer, now);
  return sequencer;
}
