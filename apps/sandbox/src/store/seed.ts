import { randomBytes } from 'node:crypto';
import type { DemoCredentials } from '../config.js';
import { depositAddress } from '../exchange/ledger.js';
import { placeOrder } from '../exchange/orders.js';
import { Sequencer } from '../state/sequencer.js';
import type { Database, Queryable } from './database.js';
import { sandboxStorage } from './sandbox-storage.js';

const currencies = [
  // code, name, type, symbol, precision, min withdrawal, withdrawal fee, min order, JPY rate
  ['BTC', 'Bitcoin', 'crypto', '₿', 8, '0.002', '0.0005', '0.0001', '9500000'],
  ['ETH', 'Ethereum', 'crypto', 'Ξ', 8, '0.02', '0.005', '0.001', '450000'],
  ['XRP', 'XRP', 'crypto', 'XRP', 6, '20', '0.15', '1', '80'],
  ['JPY', 'Japanese Yen', 'fiat', '¥', 0, '1000', '300', '1', '1'],
  ['USD', 'US Dollar', 'fiat', '$', 2, '10', '5', '0.01', '150'],
] as const;

const products = [
  // id, type, code, base, quote, tick, margin, cfd, perpetual_enabled, perpetual
  [1, 'CurrencyPair', 'CASH', 'BTC', 'JPY', '1', true, false, false, false],
  [2, 'CurrencyPair', 'CASH', 'ETH', 'JPY', '1', false, false, false, false],
  [3, 'CurrencyPair', 'CASH', 'ETH', 'BTC', '0.00001', false, false, false, false],
  [4, 'CurrencyPair', 'CASH', 'XRP', 'JPY', '0.001', false, false, false, false],
  [601, 'Perpetual', 'PERPETUAL', 'BTC', 'USD', '0.5', false, false, true, true],
] as const;

/** The resting book the market maker offers: [product, side, price, quantity]. */
const book = [
  [1, 'sell', '9500001', '0.3'],
  [1, 'sell', '9501000', '2'],
  [1, 'sell', '9505000', '1.5'],
  [1, 'buy', '9499999', '0.5'],
  [1, 'buy', '9499000', '1.2'],
  [1, 'buy', '9490000', '3'],
  [2, 'sell', '450100', '5'],
  [2, 'sell', '451000', '12'],
  [2, 'buy', '449900', '4'],
  [2, 'buy', '449000', '10'],
  [3, 'sell', '0.04745', '8'],
  [3, 'buy', '0.04735', '6'],
  [4, 'sell', '80.125', '5000'],
  [4, 'buy', '79.875', '4000'],
  [601, 'sell', '65010', '2'],
  [601, 'buy', '64990', '2'],
] as const;

const loanBook = [
  ['BTC', 'bid', '0.00020', '23.617'],
  ['BTC', 'bid', '0.00040', '50.64'],
  ['BTC', 'bid', '0.00060', '4.5'],
  ['ETH', 'bid', '0.00030', '120'],
  ['ETH', 'bid', '0.00050', '300.5'],
  ['ETH', 'ask', '0.00070', '40'],
] as const;

/** What a new user starts with in each currency. */
const startingBalances: Record<string, string> = {
  BTC: '10',
  ETH: '100',
  XRP: '100000',
  JPY: '100000000',
  USD: '1000000',
};

export const marketMakerId = 1000;
export const demoUserId = 1001;
/** A second demo user, so acting for someone else can be tried at the approval page. */
export const secondDemoUserId = 1002;

export interface NewUser {
  userId: number;
  tokenId: string;
  tokenSecret: string;
}

/** Another API token of a user; each token has a nonce sequence of its own. */
export async function addToken(
  db: Queryable,
  userId: number,
  options: { tokenId?: string; tokenSecret?: string } = {},
): Promise<{ tokenId: string; tokenSecret: string }> {
  const tokenId = options.tokenId ?? `token-${userId}-${randomBytes(6).toString('hex')}`;
  const tokenSecret = options.tokenSecret ?? randomBytes(24).toString('base64url');
  await db.query('INSERT INTO api_tokens (id, user_id, secret) VALUES ($1, $2, $3)', [
    tokenId,
    userId,
    tokenSecret,
  ]);
  return { tokenId, tokenSecret };
}

/** A user with an API token and funded accounts in every currency. */
export async function addUser(
  db: Queryable,
  options: { userId?: number; firstName?: string; tokenId?: string; tokenSecret?: string } = {},
): Promise<NewUser> {
  // Users added after the seed are numbered from 2001, clear of the seeded ones.
  const { rows } = await db.query<{ id: number }>(
    `SELECT coalesce($1::bigint, (SELECT coalesce(max(id), 2000) + 1 FROM users WHERE id > 2000))
       AS id`,
    [options.userId ?? null],
  );
  const userId = rows[0]?.id;
  if (userId === undefined) throw new Error('No user id');
  await db.query(
    `INSERT INTO users (id, email, first_name, last_name, country, currency, language, kyc_status,
       app_vendor_id, affiliate_code, email_confirmed_at_s)
     VALUES ($1, $2, $3, 'Sandbox', 'JP', 'JPY', 'en', 'approved', $1, 'sandbox', 1700000000)`,
    [userId, `user${userId}@sandbox.invalid`, options.firstName ?? 'Sandbox user'],
  );
  const { tokenId, tokenSecret } = await addToken(db, userId, options);
  for (const [currency, balance] of Object.entries(startingBalances)) {
    await db.query(
      'INSERT INTO accounts (user_id, currency, balance, address) VALUES ($1, $2, $3, $4)',
      [userId, currency, balance, depositAddress(userId, currency)],
    );
  }
  return { userId, tokenId, tokenSecret };
}

export interface NewProduct {
  id?: number;
  type?: string;
  code?: string;
  base: string;
  quote: string;
  tick?: string;
  margin?: boolean;
  cfd?: boolean;
  perpetualEnabled?: boolean;
  perpetual?: boolean;
}

/** A product with no orders yet; numbered after the existing ones unless an id is given. */
export async function addProduct(db: Queryable, product: NewProduct): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO products (id, product_type, code, base_currency, quoted_currency, taker_fee,
       maker_fee, tick_size, disabled, margin_enabled, cfd_enabled, perpetual_enabled, perpetual)
     VALUES (coalesce($1, (SELECT coalesce(max(id), 0) + 1 FROM products)), $2, $3, $4, $5, 0, 0,
       $6, false, $7, $8, $9, $10)
     RETURNING id`,
    [
      product.id ?? null,
      product.type ?? 'CurrencyPair',
      product.code ?? 'CASH',
      product.base,
      product.quote,
      product.tick ?? '1',
      product.margin ?? false,
      product.cfd ?? false,
      product.perpetualEnabled ?? false,
      product.perpetual ?? false,
    ],
  );
  const id = rows[0]?.id;
  if (id === undefined) throw new Error('Product insert returned no id');
  return id;
}

async function seedMarket(db: Queryable): Promise<void> {
  for (const [
    code,
    name,
    type,
    symbol,
    precision,
    minWithdrawal,
    fee,
    minOrder,
    rate,
  ] of currencies) {
    await db.query(
      `INSERT INTO currencies (code, name, currency_type, symbol, depositable, withdrawable,
         assets_precision, minimum_withdrawal, withdrawal_fee, minimum_order_quantity, exchange_rate)
       VALUES ($1, $2, $3, $4, true, true, $5, $6, $7, $8, $9)`,
      [code, name, type, symbol, precision, minWithdrawal, fee, minOrder, rate],
    );
  }
  for (const [
    id,
    type,
    code,
    base,
    quote,
    tick,
    margin,
    cfd,
    perpetualEnabled,
    perpetual,
  ] of products) {
    await addProduct(db, {
      id,
      type,
      code,
      base,
      quote,
      tick,
      margin,
      cfd,
      perpetualEnabled,
      perpetual,
    });
  }
  for (const [currency, side, rate, amount] of loanBook) {
    await db.query(
      'INSERT INTO loan_book_levels (currency, side, rate, amount) VALUES ($1, $2, $3, $4)',
      [currency, side, rate, amount],
    );
  }
  await addUser(db, { userId: marketMakerId, firstName: 'Market maker' });
}

/** The market maker's resting book, placed as orders like any other. */
async function seedBook(sequencer: Sequencer, now: number): Promise<void> {
  await sequencer.run((journal) => {
    for (const [productId, side, price, quantity] of book) {
      placeOrder(
        journal,
        marketMakerId,
        { order_type: 'limit', product_id: productId, side, price, quantity },
        now,
      );
    }
  });
}

/** A demo user with the configured token, added on the first start and kept in step after. */
async function ensureDemoUser(
  tx: Queryable,
  userId: number,
  firstName: string,
  tokenId: string,
  tokenSecret: string,
): Promise<void> {
  const { rows } = await tx.query('SELECT 1 FROM users WHERE id = $1', [userId]);
  if (rows.length === 0) {
    await addUser(tx, { userId, firstName, tokenId, tokenSecret });
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
    if (rows.length === 0) await seedMarket(tx);
    await ensureDemoUser(tx, demoUserId, 'Demo', credentials.tokenId, credentials.tokenSecret);
    await ensureDemoUser(
      tx,
      secondDemoUserId,
      'Second demo',
      credentials.secondTokenId,
      credentials.secondTokenSecret,
    );
    await tx.query(
      `INSERT INTO partner_applications (user_id, public_api_key, name)
       VALUES ($1, $2, 'Demo partner') ON CONFLICT (public_api_key) DO NOTHING`,
      [demoUserId, credentials.publicApiKey],
    );
    return rows.length === 0;
  });
  const sequencer = await Sequencer.open(sandboxStorage(db));
  if (seeded) await seedBook(sequencer, now);
  return sequencer;
}
