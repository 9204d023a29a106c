import { Decimal } from 'decimal.js';
import type { OrderRef, ProductInfo } from '../engine/adapter.js';
import { bodyOf, expectStatus, failAt, fieldCodes } from '../engine/context.js';
import { Skip } from '../engine/outcome.js';
import { amountOf, naming } from './ledger.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import {
  filledMarginOrderOrSkip,
  gainAt,
  type MarginOrder,
  near,
  type Row,
  tradeOpenedBy,
} from './trades.js';

const stopLoss = 'TRADE-STOP-LOSS-AT-MARK';
const liquidated = 'TRADE-LIQUIDATED-AT-MARK';
const marginKept = 'TRADE-MARGIN-KEPT-AT-MARK';

const decimal = (value: unknown) => new Decimal(String(value));
// Marks are sent with at most 8 places, the precision a trade's prices are shown with.
const places = 8;

export async function productOf(context: ScenarioContext, productId: string): Promise<Row> {
  const read = await context.caller.call('getProduct', { path: { product_id: productId } });
  expectStatus(read, 200);
  return bodyOf(read);
}

export const moveMark = (context: ScenarioContext, productId: string, price: Decimal) =>
  context.adapter.moveMarkPrice(context.adapterContext, productId, price.toFixed());

async function expectOpen(context: ScenarioContext, order: OrderRef, mark: Decimal) {
  const { trade, call } = await tradeOpenedBy(context, order);
  if (trade.status !== 'open') {
    failAt(
      `trade ${String(trade.id)} is ${String(trade.status)} at the mark ${mark.toFixed()}, before reaching what closes it`,
      call,
      'open',
    );
  }
}

/**
 * The trade closed in whole at `mark`, its close_pnl what it gained from its open price to the
 * mark (in its funding currency), and the ledger entries naming it summing to that.
 */
async function expectClosedAt(
  context: ScenarioContext,
  order: OrderRef,
  mark: Decimal,
  baseCurrency: string,
): Promise<string> {
  const { trade, call } = await tradeOpenedBy(context, order);
  const id = String(trade.id);
  if (
    trade.status !== 'closed' ||
    !decimal(trade.open_quantity).isZero() ||
    trade.close_price === null ||
    !decimal(trade.close_price).eq(mark)
  ) {
    failAt(
      `at the mark ${mark.toFixed()} trade ${id} is ${String(trade.status)}, open_quantity ${String(trade.open_quantity)}, close_price ${String(trade.close_price)}`,
      call,
      `closed, open_quantity 0, close_price ${mark.toFixed()}`,
    );
  }
  const gained = gainAt(trade, mark, trade.quantity, baseCurrency);
  if (!near(decimal(trade.close_pnl), gained)) {
    failAt(
      `${String(trade.side)} trade ${id} funded in ${String(trade.funding_currency)} (open_price ${String(trade.open_price)}, quantity ${String(trade.quantity)}) closed at the mark ${mark.toFixed()} with close_pnl ${String(trade.close_pnl)}`,
      call,
      `close_pnl ${gained.toFixed()}: the move from its open price to the mark times its quantity${trade.funding_currency === baseCurrency ? ', divided by the mark' : ''}`,
    );
  }
  const ledger = await context.caller.call('listBalanceHistory', {
    query: { currency: String(trade.funding_currency), limit: '1000' },
  });
  expectStatus(ledger, 200);
  const entries = (Array.isArray(ledger.json) ? ledger.json : []) as Row[];
  const settled = amountOf(naming(entries, 'Trade', id));
  if (!settled.eq(String(trade.close_pnl))) {
    failAt(
      `the ledger entries naming trade ${id} sum to ${settled.toFixed()}`,
      ledger,
      `entries naming the trade that sum to its close_pnl ${String(trade.close_pnl)}`,
    );
  }
  const funded = trade.funding_currency === baseCurrency ? ` funded in ${baseCurrency}` : '';
  return `trade ${id}${funded} closed at the mark ${mark.toFixed()}, close_pnl ${String(trade.close_pnl)} in the ledger`;
}

/** The product's last traded price, or the price an order crossing the book pays when none. */
async function lastTradedPrice(context: ScenarioContext, product: ProductInfo) {
  const last = (await productOf(context, product.id)).last_traded_price;
  return decimal(last ?? product.crossingBuyPrice);
}

/**
 * Runs `body` once the server has shown it can move the primary product's mark price (set
 * first to its last traded price, so nothing is made for a server that cannot, and
 * `requirementId` is SKIPped with the reason); the mark is put back to the last traded price
 * after.
 */
export async function whileMarkMoves(
  context: ScenarioContext,
  requirementId: string,
  body: (product: ProductInfo) => Promise<void>,
): Promise<void> {
  const { primary: product } = await context.market();
  const lastPrice = () => lastTradedPrice(context, product);
  try {
    await moveMark(context, product.id, await lastPrice());
  } catch (error) {
    if (!(error instanceof Skip)) throw error;
    context.evidence.record({ requirementId, outcome: 'skip', message: error.message });
    return;
  }
  try {
    await body(product);
  } finally {
    await moveMark(context, product.id, await lastPrice());
  }
}

/**
 * Runs `check` on an open trade of its own of each of `kinds` in turn, each while the mark can
 * move (`whileMarkMoves`). `inBase` kinds are funded in the product's base currency.
 */
async function onOpenTrades(
  context: ScenarioContext,
  requirementId: string,
  kinds: readonly (Pick<MarginOrder, 'side'> & { inBase?: boolean })[],
  check: (order: OrderRef, trade: Row, product: Row, baseCurrency: string) => Promise<string>,
): Promise<void> {
  for (const { side, inBase } of kinds) {
    await whileMarkMoves(context, requirementId, async (product) => {
      const fundingCurrency = inBase ? product.baseCurrency : undefined;
      const order = await filledMarginOrderOrSkip(context, [requirementId], {
        side,
        fundingCurrency,
      });
      if (!order) return;
      await context.evidence.check(requirementId, async () => {
        const { trade } = await tradeOpenedBy(context, order);
        return check(order, trade, await productOf(context, product.id), product.baseCurrency);
      });
    });
  }
}

/** A long and a short funded in the quote currency, then a long and a short in the base. */
const everyKind = [
  { side: 'buy' },
  { side: 'sell' },
  { side: 'buy', inBase: true },
  { side: 'sell', inBase: true },
] as const;

/**
 * A stop loss set between the open price and the liquidation price of the trade `order`
 * opened, on the product's tick: the trade is open with the mark short of it, and closed at
 * the mark beyond it. Below the open price for a long, above it for a short.
 */
async function checkStopLossAt(
  context: ScenarioContext,
  order: OrderRef,
  trade: Row,
  product: Row,
  baseCurrency: string,
): Promise<string> {
  const long = order.side === 'buy';
  const open = decimal(trade.open_price);
  const liquidation =
    trade.liquidation_price === null
      ? long
        ? new Decimal(0)
        : open.times(2)
      : decimal(trade.liquidation_price);
  const gap = liquidation.minus(open);
  const tick = decimal(product.tick_size ?? '0.00000001');
  // Each rounded away from the side it must not reach.
  const stop = open
    .plus(gap.div(3))
    .div(tick)
    .toDecimalPlaces(0, long ? Decimal.ROUND_FLOOR : Decimal.ROUND_CEIL)
    .times(tick);
  const short = open
    .plus(gap.div(6))
    .toDecimalPlaces(places, long ? Decimal.ROUND_UP : Decimal.ROUND_DOWN);
  const beyond = open
    .plus(gap.div(2))
    .toDecimalPlaces(places, long ? Decimal.ROUND_DOWN : Decimal.ROUND_UP);
  const inOrder = [liquidation, beyond, stop, short, open];
  const ascending = long ? inOrder : inOrder.reverse();
  if (!ascending.every((price, n) => n === 0 || (ascending[n - 1] as Decimal).lt(price))) {
    throw new Skip(
      `the product's tick ${tick.toFixed()} leaves no stop loss between open price ${open.toFixed()} and liquidation price ${liquidation.toFixed()}`,
    );
  }
  const path = { trade_id: String(trade.id) };
  const set = await context.caller.call('updateTrade', {
    path,
    body: { trade: { stop_loss: stop.toFixed() } },
  });
  expectStatus(set, 200);
  await moveMark(context, order.productId, short);
  await expectOpen(context, order, short);
  await moveMark(context, order.productId, beyond);
  return `${String(trade.side)} ${await expectClosedAt(context, order, beyond, baseCurrency)}`;
}

const stopLossAtMark: Scenario = {
  name: 'a stop loss the mark price reaches closes its trade at the mark, on a long and a short',
  profile: 'orders',
  covers: [stopLoss],
  needs: [{ step: 'moveMarkPrice' }],
  // The mark values every open trade of the product: no other scenario's may be open meanwhile.
  exclusive: true,
  run: (context) =>
    onOpenTrades(context, stopLoss, everyKind, (order, trade, product, baseCurrency) =>
      checkStopLossAt(context, order, trade, product, baseCurrency),
    ),
};

/**
 * `price`, the trade's liquidation_price, is the mark at which its margin_used plus its
 * open_pnl there falls to its maintenance_margin, cut to 8 places towards where it fires: at
 * `price` it has, a last place short of it (towards the open price) it has not.
 */
async function expectLiquidationPrice(
  context: ScenarioContext,
  order: OrderRef,
  trade: Row,
  price: Decimal,
  baseCurrency: string,
): Promise<void> {
  const margin = decimal(trade.margin_used);
  const maintenance = decimal(trade.maintenance_margin);
  const heldAt = (mark: Decimal) =>
    margin.plus(gainAt(trade, mark, trade.open_quantity, baseCurrency));
  const short = price.plus(new Decimal(10).pow(-places).times(order.side === 'buy' ? 1 : -1));
  if (heldAt(price).gt(maintenance) || heldAt(short).lte(maintenance)) {
    const { call } = await tradeOpenedBy(context, order);
    failAt(
      `${String(trade.side)} trade ${String(trade.id)} funded in ${String(trade.funding_currency)} shows liquidation_price ${price.toFixed()}: margin_used ${margin.toFixed()} plus open_pnl is ${heldAt(price).toFixed()} at it and ${heldAt(short).toFixed()} at ${short.toFixed()}`,
      call,
      `the mark at which margin_used plus open_pnl falls to maintenance_margin ${maintenance.toFixed()}, cut to ${places} places towards where it fires`,
    );
  }
}

/**
 * The trade `order` opened is open with the mark just short of its liquidation_price, and
 * closed at the mark, its loans repaid, with the mark at it.
 */
async function checkLiquidatedAt(
  context: ScenarioContext,
  order: OrderRef,
  trade: Row,
  baseCurrency: string,
) {
  if (trade.liquidation_price === null) {
    const { call } = await tradeOpenedBy(context, order);
    failAt(`open trade ${String(trade.id)} has no liquidation_price`, call, 'a price');
  }
  // The price shown is the one from which a mark liquidates: a mark at it does.
  const price = decimal(trade.liquidation_price);
  await expectLiquidationPrice(context, order, trade, price, baseCurrency);
  const short =
    order.side === 'buy'
      ? price.times('1.02').toDecimalPlaces(places, Decimal.ROUND_UP)
      : price.times('0.98').toDecimalPlaces(places, Decimal.ROUND_DOWN);
  await moveMark(context, order.productId, short);
  await expectOpen(context, order, short);
  await moveMark(context, order.productId, price);
  const closed = await expectClosedAt(context, order, price, baseCurrency);
  const after = await tradeOpenedBy(context, order);
  if (!decimal(after.trade.daily_interest).isZero()) {
    failAt(
      `liquidated trade ${String(after.trade.id)} still pays daily_interest ${String(after.trade.daily_interest)}`,
      after.call,
      'daily_interest 0: the loans it borrowed repaid',
    );
  }
  return `${String(trade.side)} ${closed}, its loans repaid`;
}

const liquidatedAtMark: Scenario = {
  name: 'a long, then a short, the mark price takes to its liquidation price is closed at the mark',
  profile: 'orders',
  covers: [liquidated],
  needs: [{ step: 'moveMarkPrice' }],
  exclusive: true,
  run: (context) =>
    onOpenTrades(context, liquidated, everyKind, (order, trade, _product, baseCurrency) =>
      checkLiquidatedAt(context, order, trade, baseCurrency),
    ),
};

/**
 * A long given its margin again, the mark moved halfway from its old liquidation price to its
 * new one: the trade stays open, and taking the added margin back, which would liquidate it
 * there, is refused naming delta, its margin_used as it was.
 */
async function checkMarginKept(context: ScenarioContext, order: OrderRef, trade: Row) {
  const path = { trade_id: String(trade.id) };
  const delta = decimal(trade.margin_used).toDecimalPlaces(0, Decimal.ROUND_DOWN);
  if (delta.lt(1) || trade.liquidation_price === null) {
    throw new Skip(`trade ${String(trade.id)} holds margin_used ${String(trade.margin_used)}`);
  }
  try {
    const added = await context.caller.call('adjustTradeMargin', {
      path,
      body: { delta: delta.toFixed() },
    });
    expectStatus(added, 200);
    const grown = bodyOf(added);
    const mark = decimal(trade.liquidation_price)
      .plus(decimal(grown.liquidation_price))
      .div(2)
      .toDecimalPlaces(places, Decimal.ROUND_DOWN);
    await moveMark(context, order.productId, mark);
    await expectOpen(context, order, mark);
    const refused = await context.caller.call('adjustTradeMargin', {
      path,
      body: { delta: delta.neg().toFixed() },
    });
    const documented = '422 {"errors": {"delta": [...]}}';
    expectStatus(refused, 422, documented);
    if (!Array.isArray(fieldCodes(refused, 'delta'))) {
      failAt(`taking back ${delta.toFixed()} is refused without naming delta`, refused, documented);
    }
    const { trade: now, call } = await tradeOpenedBy(context, order);
    if (now.status !== 'open' || !decimal(now.margin_used).eq(decimal(grown.margin_used))) {
      failAt(
        `after the refusal trade ${String(trade.id)} is ${String(now.status)}, margin_used ${String(now.margin_used)}`,
        call,
        `open, margin_used ${String(grown.margin_used)} as before`,
      );
    }
    return `trade ${String(trade.id)}: ${delta.toFixed()} added, kept at the mark ${mark.toFixed()}`;
  } finally {
    // Closed whatever the checks found; one the mark liquidated answers that it is not open.
    await context.caller.call('closeTrade', { path, body: {} });
  }
}

const marginKeptAtMark: Scenario = {
  name: 'margin added to a long is not taken back where it keeps the trade open',
  profile: 'orders',
  covers: [marginKept],
  needs: [{ step: 'moveMarkPrice' }],
  exclusive: true,
  run: (context) =>
    onOpenTrades(context, marginKept, [{ side: 'buy' }], (order, trade) =>
      checkMarginKept(context, order, trade),
    ),
};

export const tradesAtMarkScenarios: Scenario[] = [
  stopLossAtMark,
  liquidatedAtMark,
  marginKeptAtMark,
];
