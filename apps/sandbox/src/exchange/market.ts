import { toDecimalString } from '@exchange-kit/core';
import { type Handler, type Handlers, HttpError } from '../http/types.js';
import type { Queryable } from '../store/database.js';

const decimal = (value: string) => toDecimalString(value, 'stored decimal');
const nullableDecimal = (value: string | null) => (value === null ? null : decimal(value));

/** Unix seconds with a fractional part, as the spec's UnixSecondsFractional writes it. */
export function fractionalSeconds(ms: number): string {
  return `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
}

interface ProductRow {
  id: number;
  product_type: string;
  code: string;
  base_currency: string;
  quoted_currency: string;
  symbol: string;
  taker_fee: string;
  maker_fee: string;
  tick_size: string;
  disabled: boolean;
  margin_enabled: boolean;
  cfd_enabled: boolean;
  perpetual_enabled: boolean;
  market_ask: string | null;
  market_bid: string | null;
  low_market_bid: string | null;
  high_market_ask: string | null;
  volume_24h: string;
  last_price_24h: string | null;
  last_traded_price: string | null;
  last_traded_quantity: string | null;
}

// Market data comes from the live book and the fills of the last 24 hours.
const productQuery = `
  SELECT p.*, c.symbol,
    (SELECT min(price) FROM orders WHERE product_id = p.id AND side = 'sell'
       AND status IN ('live', 'partially_filled') AND NOT conditional) AS market_ask,
    (SELECT max(price) FROM orders WHERE product_id = p.id AND side = 'buy'
       AND status IN ('live', 'partially_filled') AND NOT conditional) AS market_bid,
    (SELECT min(price) FROM fills WHERE product_id = p.id AND created_at > $1) AS low_market_bid,
    (SELECT max(price) FROM fills WHERE product_id = p.id AND created_at > $1) AS high_market_ask,
    (SELECT coalesce(sum(quantity), 0) FROM fills WHERE product_id = p.id AND created_at > $1)
      AS volume_24h,
    (SELECT price FROM fills WHERE product_id = p.id AND created_at > $1
       ORDER BY created_at, id LIMIT 1) AS last_price_24h,
    (SELECT price FROM fills WHERE product_id = p.id ORDER BY created_at DESC, id DESC LIMIT 1)
      AS last_traded_price,
    (SELECT quantity FROM fills WHERE product_id = p.id ORDER BY created_at DESC, id DESC LIMIT 1)
      AS last_traded_quantity
  FROM products p JOIN currencies c ON c.code = p.quoted_currency`;

const day = 24 * 60 * 60 * 1000;

function productView(row: ProductRow, now: number): Record<string, unknown> {
  return {
    id: String(row.id),
    product_type: row.product_type,
    code: row.code,
    name: `${row.base_currency}/${row.quoted_currency}`,
    market_ask: nullableDecimal(row.market_ask),
    market_bid: nullableDecimal(row.market_bid),
    currency: row.quoted_currency,
    currency_pair_code: `${row.base_currency}${row.quoted_currency}`,
    symbol: row.symbol,
    taker_fee: decimal(row.taker_fee),
    maker_fee: decimal(row.maker_fee),
    low_market_bid: nullableDecimal(row.low_market_bid),
    high_market_ask: nullableDecimal(row.high_market_ask),
    volume_24h: decimal(row.volume_24h),
    last_price_24h: nullableDecimal(row.last_price_24h),
    last_traded_price: nullableDecimal(row.last_traded_price),
    last_traded_quantity: nullableDecimal(row.last_traded_quantity),
    quoted_currency: row.quoted_currency,
    base_currency: row.base_currency,
    tick_size: decimal(row.tick_size),
    disabled: row.disabled,
    margin_enabled: row.margin_enabled,
    cfd_enabled: row.cfd_enabled,
    perpetual_enabled: row.perpetual_enabled,
    timestamp: fractionalSeconds(now),
  };
}

async function productById(
  db: Queryable,
  id: string | undefined,
  now: number,
): Promise<ProductRow> {
  if (id === undefined || !/^[0-9]{1,15}$/.test(id)) throw new HttpError(404, 'Product not found');
  const { rows } = await db.query<ProductRow>(`${productQuery} WHERE p.id = $2::bigint`, [
    now - day,
    id,
  ]);
  const row = rows[0];
  if (!row) throw new HttpError(404, 'Product not found');
  return row;
}

/** Without perpetual=1 the spot and margin pairs; with it, the perpetual products. */
const listProducts: Handler = async ({ db, query, now }) => {
  const { rows } = await db.query<ProductRow>(
    `${productQuery} WHERE p.perpetual = $2 ORDER BY p.id`,
    [now - day, query.perpetual === '1'],
  );
  return { status: 200, body: rows.map((row) => productView(row, now)) };
};

const getProduct: Handler = async ({ db, path, now }) => ({
  status: 200,
  body: productView(await productById(db, path.product_id, now), now),
});

/** The book aggregated by price from the resting orders, best price first on each side. */
const getPriceLevels: Handler = async ({ db, path, now }) => {
  const product = await productById(db, path.product_id, now);
  const side = async (name: 'buy' | 'sell') => {
    const { rows } = await db.query<{ price: string; quantity: string }>(
      `SELECT price, sum(quantity - filled_quantity) AS quantity FROM orders
       WHERE product_id = $1 AND side = $2 AND status IN ('live', 'partially_filled')
         AND NOT conditional
       GROUP BY price ORDER BY price ${name === 'buy' ? 'DESC' : 'ASC'}`,
      [product.id, name],
    );
    return rows.map((row) => [decimal(row.price), decimal(row.quantity)]);
  };
  return {
    status: 200,
    body: {
      buy_price_levels: await side('buy'),
      sell_price_levels: await side('sell'),
      timestamp: fractionalSeconds(now),
    },
  };
};

interface CurrencyRow {
  code: string;
  name: string;
  currency_type: string;
  depositable: boolean;
  withdrawable: boolean;
  assets_precision: number;
  minimum_withdrawal: string;
  withdrawal_fee: string;
  minimum_order_quantity: string;
}

const listCurrencies: Handler = async ({ db }) => {
  const { rows } = await db.query<CurrencyRow>('SELECT * FROM currencies ORDER BY code');
  return {
    status: 200,
    body: rows.map((row) => ({
      currency: row.code,
      name: row.name,
      currency_type: row.currency_type,
      depositable: row.depositable,
      withdrawable: row.withdrawable,
      assets_precision: row.assets_precision,
      minimum_withdrawal: decimal(row.minimum_withdrawal),
      withdrawal_fee: decimal(row.withdrawal_fee),
      minimum_order_quantity: decimal(row.minimum_order_quantity),
    })),
  };
};

/** The loan book of a crypto currency, rates ascending; codes are case sensitive. */
const getLoanBook: Handler = async ({ db, path, now }) => {
  const { rows: currency } = await db.query(
    `SELECT 1 FROM currencies WHERE code = $1 AND currency_type = 'crypto'`,
    [path.currency],
  );
  if (currency.length === 0) throw new HttpError(404, 'Currency not found');
  const levels = async (side: 'bid' | 'ask') => {
    const { rows } = await db.query<{ rate: string; amount: string }>(
      'SELECT rate, amount FROM loan_book_levels WHERE currency = $1 AND side = $2 ORDER BY rate',
      [path.currency, side],
    );
    return rows.map((row) => [row.rate, row.amount]);
  };
  return {
    status: 200,
    body: {
      bids: await levels('bid'),
      asks: await levels('ask'),
      timestamp: fractionalSeconds(now),
    },
  };
};

export const marketHandlers: Handlers = {
  listProducts,
  getProduct,
  getPriceLevels,
  listCurrencies,
  getLoanBook,
};
