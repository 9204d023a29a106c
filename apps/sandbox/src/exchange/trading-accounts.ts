import { bundledDocuments } from '@exchange-kit/contract/documents';
import type { components } from '@exchange-kit/contract/exchange';
import type { zUpdateTradingAccountBody } from '@exchange-kit/contract/exchange/schemas';
import type * as z from 'zod/mini';
import { NotFound } from '../handling/errors.js';
import type { ExchangeHandlerOf, Handlers } from '../handling/operation.js';
import type { ExchangeState } from '../state/exchange-state.js';
import type { Journal } from '../state/journal.js';
import { D, type Product } from '../state/records.js';
import { actingUser } from './caller.js';
import { tradeView } from './trade-view.js';

type TradingAccountBody = components['schemas']['TradingAccount'];
type Summary = components['schemas']['TradingAccountSummary'];

/*
 * A trading account exists for every margin product at every moment, products added after a
 * user included, so its id is derived from its user and product rather than handed out: reads
 * need no row, the id is the same after a restart, and no two (user, product) pairs share one
 * while product ids stay under a million. Only the leverage setting a PUT changes is stored.
 */
const perUser = 1_000_000;
/** The id of `userId`'s trading account on `productId`. */
export const accountId = (userId: number, productId: number) => userId * perUser + productId;

// The bound of the update body is the one place the sandbox's highest level is written.
const updateSchema = bundledDocuments.exchange.components?.schemas?.TradingAccountUpdate as {
  properties: { trading_account: { properties: { leverage_level: { maximum: number } } } };
};
const maxLeverageLevel = updateSchema.properties.trading_account.properties.leverage_level.maximum;

const notFound = () => new NotFound('Trading account not found');

/** Whether `product` has a trading account: it is traded on margin, funded in its quote. */
export const hasTradingAccount = (product: Product) =>
  !product.disabled && (product.marginEnabled || product.cfdEnabled || product.perpetualEnabled);

/** The ids of `userId`'s trading accounts, one per margin product, in id order. */
export function tradingAccountIds(state: ExchangeState, userId: number): number[] {
  return [...state.products.values()]
    .filter(hasTradingAccount)
    .map((product) => accountId(userId, product.id))
    .sort((a, b) => a - b);
}

/** The leverage level `userId`'s margin orders on `productId` take when they name none. */
export function defaultLeverageLevel(
  state: ExchangeState,
  userId: number,
  productId: number,
): number {
  return state.leverageSettings.get(accountId(userId, productId))?.leverageLevel ?? 1;
}

/** The product of `userId`'s trading account `id`; another user's, or none, is not found. */
function ownProduct(state: ExchangeState, userId: number, id: number): Product {
  const product = state.products.get(id % perUser);
  if (Math.floor(id / perUser) !== userId || !product || !hasTradingAccount(product)) {
    throw notFound();
  }
  return product;
}

const quotient = (value: D, by: D) => (by.gt(0) ? value.div(by) : new D(0));
// A ratio's digits never end; 16 places are more than any reader of one needs.
const ratio = (value: D, by: D) => quotient(value, by).toDecimalPlaces(16, D.ROUND_DOWN);

type TradeBody = components['schemas']['Trade'];

/**
 * One side's open trades summed: the summary (open P&L, open quantity, its average open
 * price), and the margin and open value the account's own figures add up.
 */
function sideOf(trades: TradeBody[]): { summary: Summary; openValue: D; margin: D } {
  let pnl = new D(0);
  let position = new D(0);
  let openValue = new D(0);
  let margin = new D(0);
  for (const trade of trades) {
    const open = new D(trade.open_quantity);
    pnl = pnl.plus(trade.open_pnl);
    position = position.plus(open);
    openValue = openValue.plus(open.times(trade.open_price));
    margin = margin.plus(trade.margin_used);
  }
  // Cut as each trade's open_price is: an average of three prices may never end.
  const base_open_price = quotient(openValue, position).toDecimalPlaces(8, D.ROUND_DOWN).toFixed();
  return {
    summary: { pnl: pnl.toFixed(), position: position.toFixed(), base_open_price },
    openValue,
    margin,
  };
}

/**
 * The figures of `userId`'s account on `product`, from their open trades of it funded in its
 * quote currency (each as `GET /trades` shows it, at the mark price) and that balance.
 */
export function tradingAccountView(
  state: ExchangeState,
  userId: number,
  product: Product,
): TradingAccountBody {
  const id = accountId(userId, product.id);
  const funding = product.quotedCurrency;
  const open = state
    .positionsOfUser(userId)
    .filter(
      (position) =>
        position.productId === product.id &&
        position.status === 'open' &&
        position.fundingCurrency === funding,
    )
    .map((position) => tradeView(state, position));
  const long = sideOf(open.filter((trade) => trade.side === 'long'));
  const short = sideOf(open.filter((trade) => trade.side === 'short'));
  const balance = state.accounts.get(userId)?.get(funding)?.balance ?? new D(0);
  const pnl = new D(long.summary.pnl).plus(short.summary.pnl);
  const margin = long.margin.plus(short.margin);
  const equity = balance.plus(pnl);
  const mark = state.markPrice(product.id);
  const longQuantity = new D(long.summary.position);
  const shortQuantity = new D(short.summary.position);
  const openQuantity = longQuantity.plus(shortQuantity);
  const notional = mark ? openQuantity.times(mark) : long.openValue.plus(short.openValue);
  return {
    id,
    product_id: product.id,
    currency_pair_code: `${product.baseCurrency}${product.quotedCurrency}`,
    leverage_level: defaultLeverageLevel(state, userId, product.id),
    max_leverage_level: maxLeverageLevel,
    current_leverage_level: ratio(notional, equity).toFixed(),
    pnl: pnl.toFixed(),
    equity: equity.toFixed(),
    margin: margin.toFixed(),
    free_margin: equity.minus(margin).toFixed(),
    margin_percent: ratio(margin, equity).toFixed(),
    position: longQuantity.minus(shortQuantity).toFixed(),
    balance: balance.toFixed(),
    funding_currency: funding,
    pusher_channel: `trading_account_${id}`,
    long_summary: long.summary,
    short_summary: short.summary,
  };
}

const listTradingAccounts: ExchangeHandlerOf<'listTradingAccounts'> = ({ journal, caller }) => {
  const state = journal.exchange;
  const userId = actingUser(caller);
  const body = tradingAccountIds(state, userId).map((id) =>
    tradingAccountView(state, userId, ownProduct(state, userId, id)),
  );
  return { status: 200, body };
};

const getTradingAccount: ExchangeHandlerOf<'getTradingAccount'> = ({ journal, caller, path }) => {
  const state = journal.exchange;
  const userId = actingUser(caller);
  const product = ownProduct(state, userId, path.trading_account_id);
  return { status: 200, body: tradingAccountView(state, userId, product) };
};

const updateTradingAccount: ExchangeHandlerOf<'updateTradingAccount'> = (context) => {
  const { trading_account } = context.body as z.infer<typeof zUpdateTradingAccountBody>;
  const { journal } = context;
  const userId = actingUser(context.caller);
  const product = ownProduct(journal.exchange, userId, context.path.trading_account_id);
  setLeverage(journal, userId, product, trading_account.leverage_level);
  return { status: 200, body: tradingAccountView(journal.exchange, userId, product) };
};

function setLeverage(journal: Journal, userId: number, product: Product, level: number): void {
  const tradingAccountId = accountId(userId, product.id);
  const setting = journal.exchange.leverageSettings.get(tradingAccountId);
  if (setting) journal.touch('leverageSetting', setting).leverageLevel = level;
  else
    journal.add('leverageSetting', {
      tradingAccountId,
      userId,
      productId: product.id,
      leverageLevel: level,
    });
}

export const tradingAccountHandlers = {
  listTradingAccounts,
  getTradingAccount,
  updateTradingAccount,
} satisfies Handlers;
