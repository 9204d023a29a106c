import type { components } from '@exchange-kit/contract/exchange';
import { type ExchangeHandlerOf, type Handlers, later } from '../handling/operation.js';
import { D, type ExchangeState } from '../state/exchange-state.js';
import { actingUser } from './caller.js';
import { type FeeRole, feeRate, feeTier, fillFee, withdrawalFee } from './fee-rules.js';
import { checkAmount, fundingCurrencyFor, loadProduct, tradingTypeFor } from './orders.js';

type FeeRule = components['schemas']['FeeRule'];
type FeeType = components['schemas']['FeeType'];

/** The rules of one tier, trade fees by product id, then withdrawal fees by currency. */
function feeRules(state: ExchangeState, tier: number, feeType: FeeType | undefined): FeeRule[] {
  const none = { product_id: null, currency: null, taker_fee: null, maker_fee: null };
  const trade: FeeRule[] = [...state.products.values()]
    .sort((a, b) => a.id - b.id)
    .map((product) => ({
      ...none,
      fee_type: 'trade_fee',
      fee_tier: tier,
      product_id: String(product.id),
      taker_fee: feeRate(product, 'taker').toFixed(),
      maker_fee: feeRate(product, 'maker').toFixed(),
      withdrawal_fee: null,
    }));
  const withdrawal: FeeRule[] = [...state.currencies.values()]
    .filter((currency) => currency.withdrawable)
    .sort((a, b) => a.code.localeCompare(b.code))
    .map((currency) => ({
      ...none,
      fee_type: 'withdrawal_fee',
      fee_tier: tier,
      currency: currency.code,
      withdrawal_fee: withdrawalFee(currency).toFixed(),
    }));
  return [...trade, ...withdrawal].filter((rule) => !feeType || rule.fee_type === feeType);
}

const listFees: ExchangeHandlerOf<'listFees'> = ({ journal, query }) => ({
  status: 200,
  body: feeRules(journal.exchange, feeTier, query.fee_type),
});

const listUserFees: ExchangeHandlerOf<'listUserFees'> = ({ journal, query }) => ({
  status: 200,
  body: feeRules(journal.exchange, feeTier, query.fee_type),
});

const volumeDays = 30;

/**
 * The value of the caller's fills of the last 30 days in the caller's currency, at each
 * currency's exchange rate (its value in JPY), on perpetual products and on the others.
 */
const getFeeTier: ExchangeHandlerOf<'getFeeTier'> = ({ caller, now }) => {
  const userId = actingUser(caller);
  const from = now - volumeDays * 24 * 60 * 60 * 1000;
  return later(async (history, exchange) => {
    const inCurrency = exchange.users.get(userId)?.currency ?? 'JPY';
    const rate = (code: string) => exchange.currencies.get(code)?.exchangeRate ?? new D(0);
    const volume = { pair: new D(0), perpetual: new D(0) };
    for (const { fill } of await history.ownFillsSince(userId, from)) {
      const product = exchange.products.get(fill.productId);
      if (!product) continue;
      const inJpy = fill.quantity.times(fill.price).times(rate(product.quotedCurrency));
      if (product.perpetual) volume.perpetual = volume.perpetual.plus(inJpy);
      else volume.pair = volume.pair.plus(inJpy);
    }
    const own = rate(inCurrency);
    const inOwn = (jpy: D) => (own.isZero() ? jpy : jpy.div(own).toDecimalPlaces(16, D.ROUND_DOWN));
    return {
      status: 200,
      body: {
        fee_tier: feeTier,
        from_time: new Date(from).toISOString(),
        to_time: new Date(now).toISOString(),
        in_currency: inCurrency,
        currency_pair_volume: inOwn(volume.pair).toFixed(),
        perpetual_volume: inOwn(volume.perpetual).toFixed(),
      },
    };
  });
};

type EstimateInput = components['schemas']['FeeEstimateRequest'];

/**
 * Whether the order would take or make liquidity: it rests (maker) when post-only, or when a
 * limit price does not reach the best opposite order on the book now; otherwise it takes.
 */
function roleOf(state: ExchangeState, input: EstimateInput, productId: number, price: D): FeeRole {
  const orderType = input.order_type ?? 'limit';
  if (orderType === 'limit_post_only') return 'maker';
  if (orderType !== 'limit') return 'taker';
  const best = state.book(productId)[input.side === 'buy' ? 'sell' : 'buy'].best();
  if (!best) return 'maker';
  return (input.side === 'buy' ? best.price.lte(price) : best.price.gte(price)) ? 'taker' : 'maker';
}

/** The fee a fill of the order described would be charged, by the rule the fill charges by. */
const estimateFee: ExchangeHandlerOf<'estimateFee'> = ({ journal, body }) => {
  const product = loadProduct(journal, body.product_id);
  checkAmount('quantity', body.quantity);
  checkAmount('price', body.price);
  const tradingType = tradingTypeFor(product, body.trading_type);
  const fundingCurrency = fundingCurrencyFor(product, body.funding_currency);
  const price = new D(body.price);
  const role = roleOf(journal.exchange, body, product.id, price);
  const fee = fillFee({ side: body.side, tradingType, fundingCurrency }, role, product, {
    quantity: new D(body.quantity),
    price,
  });
  return {
    status: 200,
    body: {
      fee_options: {
        default: [{ fee_type: 'trade_fee', amount: fee.amount.toFixed(), currency: fee.currency }],
      },
    },
  };
};

export const feeHandlers = {
  listFees,
  listUserFees,
  getFeeTier,
  estimateFee,
} satisfies Handlers;
