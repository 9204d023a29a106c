import type { components } from '@exchange-kit/contract/exchange';
import { Refusal } from '../handling/errors.js';
import { type ExchangeHandlerOf, type Handlers, later } from '../handling/operation.js';
import type { ExchangeState } from '../state/exchange-state.js';
import { D } from '../state/records.js';
import { actingUser } from './caller.js';
import { type FeeRole, feeRate, feeTier, fillFee, withdrawalFee } from './fee-rules.js';
import {
  checkAmount,
  checkTick,
  fundingCurrencyFor,
  loadProduct,
  quantityFault,
  tradingTypeFor,
} from './orders.js';

type FeeRule = components['schemas']['FeeRule'];
type FeeType = components['schemas']['FeeType'];

/**
 * The rules of one tier: each product's taker then maker rate, by product id, then each
 * withdrawable currency's fee, by code. A rule's id is its place in that order, which the
 * products and currencies fix.
 */
function feeRules(state: ExchangeState, tier: number, feeType: FeeType | undefined): FeeRule[] {
  const trade = [...state.products.values()]
    .sort((a, b) => a.id - b.id)
    .flatMap((product) =>
      (['taker', 'maker'] as const).map((role) => ({
        fee_type: 'trade_fee' as const,
        conditions: {
          product_type: product.productType,
          trading_type: null,
          currency_pair_code: `${product.baseCurrency}${product.quotedCurrency}`,
          fee_tier: tier,
          maker_taker: role,
        },
        charge_type: 'rate',
        charge_value: feeRate(product, role).toFixed(),
        charge_base_currency: null,
      })),
    );
  const withdrawal = [...state.currencies.values()]
    .filter((currency) => currency.withdrawable)
    .sort((a, b) => a.code.localeCompare(b.code))
    .map((currency) => ({
      fee_type: 'withdrawal_fee' as const,
      conditions: {
        product_type: null,
        trading_type: null,
        currency_pair_code: null,
        fee_tier: tier,
        maker_taker: null,
      },
      charge_type: 'fixed',
      charge_value: withdrawalFee(currency).toFixed(),
      charge_base_currency: currency.code,
    }));
  return [...trade, ...withdrawal]
    .map((rule, n): FeeRule => ({ id: n + 1, ...rule }))
    .filter((rule) => !feeType || rule.fee_type === feeType);
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
  // An estimate is of an order the exchange would take: held to what placing it is.
  const fault = quantityFault(journal, product, new D(body.quantity));
  if (fault) throw new Refusal('quantity', fault);
  checkTick(product, body.price);
  const tradingType = tradingTypeFor(product, body.trading_type);
  const fundingCurrency = fundingCurrencyFor(product, body.funding_currency);
  const price = new D(body.price);
  const role = roleOf(journal.exchange, body, product.id, price);
  const fee = fillFee({ tradingType, fundingCurrency }, role, product, {
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
