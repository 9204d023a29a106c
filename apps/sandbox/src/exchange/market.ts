import { channelAddress } from '@exchange-kit/contract/events';
import { NotFound } from '../handling/errors.js';
import type { ExchangeHandlerOf, Handlers } from '../handling/operation.js';
import type { BookSide } from '../state/book-side.js';
import type { ExchangeState } from '../state/exchange-state.js';
import { idNamed } from '../state/ids.js';
import { D, type LoanBid, type LoanLevel, type Order, type Product } from '../state/records.js';
import { availableOf, liveLoanBids } from './loan-bids.js';

/** Unix seconds with a fractional part, as the spec's UnixSecondsFractional writes it. */
export function fractionalSeconds(ms: number): string {
  return `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
}

const zero = new D(0);
const nullable = (value: D | undefined) => (value === undefined ? null : value.toFixed());

/** Market data from the live book and the fills of the last 24 hours (`TradedProduct.lastDay`). */
export function productView(state: ExchangeState, product: Product, now: number) {
  const book = state.book(product.id);
  const day = state.traded.get(product.id)?.lastDay(now);
  const pair = `${product.baseCurrency}${product.quotedCurrency}`;
  return {
    id: String(product.id),
    product_type: product.productType,
    code: product.code,
    name: `${product.baseCurrency}/${product.quotedCurrency}`,
    market_ask: nullable(book.sell.best()?.price),
    market_bid: nullable(book.buy.best()?.price),
    currency: product.quotedCurrency,
    currency_pair_code: pair,
    symbol: state.currencies.get(product.quotedCurrency)?.symbol ?? product.quotedCurrency,
    taker_fee: product.takerFee.toFixed(),
    maker_fee: product.makerFee.toFixed(),
    low_market_bid: nullable(day?.low),
    high_market_ask: nullable(day?.high),
    volume_24h: (day?.volume ?? zero).toFixed(),
    last_price_24h: nullable(day?.first?.price),
    last_traded_price: nullable(day?.last?.price),
    last_traded_quantity: nullable(day?.last?.quantity),
    quoted_currency: product.quotedCurrency,
    base_currency: product.baseCurrency,
    tick_size: product.tickSize.toFixed(),
    disabled: product.disabled,
    margin_enabled: product.marginEnabled,
    cfd_enabled: product.cfdEnabled,
    perpetual_enabled: product.perpetualEnabled,
    timestamp: fractionalSeconds(now),
    pusher_channel: channelAddress('productCash', { pair, productId: product.id }),
    last_event_timestamp: day?.last ? fractionalSeconds(day.last.createdAt) : null,
    average_price:
      day?.value && day.volume?.gt(0)
        ? day.value.div(day.volume).toDecimalPlaces(8, D.ROUND_DOWN).toFixed()
        : null,
    ...(product.perpetual ? perpetualFigures(state, product) : {}),
  };
}

/**
 * What a perpetual carries beside a pair's figures. The sandbox indexes no outside market and
 * charges no funding: its index and fair prices are its mark price, its funding rate 0.
 */
function perpetualFigures(state: ExchangeState, product: Product) {
  const mark = nullable(state.markPrice(product.id));
  return { index_price: mark, mark_price: mark, fair_price: mark, funding_rate: '0' };
}

function productById(state: ExchangeState, id: string | number): Product {
  const named = idNamed(id);
  const product = named !== undefined && state.products.get(named);
  if (!product) throw new NotFound('Product not found');
  return product;
}

/** Without perpetual=1 the spot and margin pairs; with it, the perpetual products. */
const listProducts: ExchangeHandlerOf<'listProducts'> = ({
  journal: { exchange: state },
  query,
  now,
}) => ({
  status: 200,
  body: [...state.products.values()]
    .filter((product) => product.perpetual === (query.perpetual === 1))
    .sort((a, b) => a.id - b.id)
    .map((product) => productView(state, product, now)),
});

const getProduct: ExchangeHandlerOf<'getProduct'> = ({
  journal: { exchange: state },
  path,
  now,
}) => ({
  status: 200,
  body: productView(state, productById(state, path.product_id), now),
});

/** The levels of a side the book shows unless every level is asked for (`full=1`). */
export const shownLevels = 20;

/**
 * One side of the book aggregated by price, best price first: the best `depth` levels. A
 * deep book is read only as far as the levels shown, since the channels render it on every
 * change of its side.
 */
export function priceLevels(side: BookSide<Order>, depth = shownLevels): [string, string][] {
  const aggregated: [D, D][] = [];
  for (const order of side.bestFirst()) {
    const remaining = order.quantity.minus(order.filledQuantity);
    const last = aggregated.at(-1);
    if (last?.[0].eq(order.price)) last[1] = last[1].plus(remaining);
    else if (aggregated.length === depth) break;
    else aggregated.push([order.price, remaining]);
  }
  return aggregated.map(([price, quantity]) => [price.toFixed(), quantity.toFixed()]);
}

const getPriceLevels: ExchangeHandlerOf<'getPriceLevels'> = ({
  journal: { exchange: state },
  path,
  query,
  now,
}) => {
  const book = state.book(productById(state, path.product_id).id);
  const depth = query.full === 1 ? Number.POSITIVE_INFINITY : shownLevels;
  return {
    status: 200,
    body: {
      buy_price_levels: priceLevels(book.buy, depth),
      sell_price_levels: priceLevels(book.sell, depth),
      timestamp: fractionalSeconds(now),
    },
  };
};

const listCurrencies: ExchangeHandlerOf<'listCurrencies'> = ({ journal: { exchange: state } }) => ({
  status: 200,
  body: [...state.currencies.values()]
    .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
    .map((currency) => ({
      currency: currency.code,
      name: currency.name,
      currency_type: currency.currencyType,
      depositable: currency.depositable,
      withdrawable: currency.withdrawable,
      assets_precision: currency.assetsPrecision,
      minimum_withdrawal: currency.minimumWithdrawal.toFixed(),
      withdrawal_fee: currency.withdrawalFee.toFixed(),
      minimum_order_quantity: currency.minimumOrderQuantity.toFixed(),
    })),
});

/**
 * The demo ladder's bid levels with the live loan bids added at their rates, rates ascending.
 * Added to, not replaced: the demo ladder stands for lenders who are not sandbox users, so a
 * fresh sandbox still shows a book to borrow from, and each live bid adds what it offers.
 */
function withLiveBids(levels: readonly LoanLevel[], bids: readonly LoanBid[]): [string, string][] {
  const byRate = new Map<string, { rate: D; amount: D }>();
  const add = (rate: D, amount: D) => {
    const key = rate.toFixed();
    const level = byRate.get(key);
    byRate.set(key, { rate, amount: level ? level.amount.plus(amount) : amount });
  };
  for (const level of levels) add(new D(level.rate), new D(level.amount));
  for (const bid of bids) if (availableOf(bid).gt(0)) add(bid.rate, availableOf(bid));
  return [...byRate.values()]
    .sort((a, b) => a.rate.comparedTo(b.rate))
    .map((level) => [
      levels.find((demo) => new D(demo.rate).eq(level.rate))?.rate ?? level.rate.toFixed(),
      level.amount.toFixed(),
    ]);
}

/** The loan book of a crypto currency, rates ascending; codes are case sensitive. */
const getLoanBook: ExchangeHandlerOf<'getLoanBook'> = ({
  journal: { exchange: state },
  path,
  now,
}) => {
  const code = path.currency ?? '';
  if (state.currencies.get(code)?.currencyType !== 'crypto') {
    throw new NotFound('Currency not found');
  }
  const book = state.loanBook.get(code);
  return {
    status: 200,
    body: {
      bids: withLiveBids(book?.bid ?? [], liveLoanBids(state, code)),
      asks: (book?.ask ?? []).map((level) => [level.rate, level.amount]),
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
