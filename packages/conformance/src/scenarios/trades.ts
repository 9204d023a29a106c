import { Decimal } from 'decimal.js';
import type { OrderRef } from '../engine/adapter.js';
import { bodyOf, expectStatus, failAt, fieldCodes } from '../engine/context.js';
import { type RecordedCall, Skip } from '../engine/outcome.js';
import { ownFillsOfProduct } from './executions.js';
import { amountOf, entriesOf, naming } from './ledger.js';
import { reservedOf } from './loan-bids.js';
import type { Scenario, ScenarioContext } from './scenario.js';

export type Row = Record<string, unknown>;

const opened = 'TRADE-OPENED-BY-MARGIN-FILL';
const closePartial = 'TRADE-CLOSE-PARTIAL';
const closeAll = 'TRADE-CLOSE-ALL';
const closeFee = 'TRADE-CLOSE-FEE';
const closePnl = 'TRADE-CLOSE-PNL';
const closeOffStep = 'TRADE-CLOSE-OFF-STEP';
const marginOffStep = 'TRADE-MARGIN-OFF-STEP';
export const marginAdjusted = 'TRADE-MARGIN-ADJUSTED';
const covered = [
  opened,
  marginOffStep,
  marginAdjusted,
  closeOffStep,
  closePartial,
  closeFee,
  closePnl,
  closeAll,
];

const sideOfTrade = { buy: 'long', sell: 'short' } as const;

/** Whether `shown` is `expected` to the last place it shows: what a division leaves may be cut. */
export const toLastPlace = (shown: Decimal, expected: Decimal) =>
  shown.minus(expected).abs().lte(new Decimal(10).pow(-shown.decimalPlaces()));

/**
 * What `quantity` of `trade` gains at `price`, in its funding currency: the move of the price
 * from its open price, up for a long and down for a short, times the quantity; divided by the
 * price when it is funded in the base currency.
 */
export function gainAt(
  trade: Row,
  price: Decimal,
  quantity: unknown,
  baseCurrency: string,
): Decimal {
  const move = price.minus(new Decimal(String(trade.open_price)));
  const gain = (trade.side === 'short' ? move.neg() : move).times(new Decimal(String(quantity)));
  return trade.funding_currency === baseCurrency ? gain.div(price) : gain;
}

/**
 * Whether `shown` is `expected` to its last place shown, or to 9 significant digits: what a
 * division leaves may be cut; a sign or a factor off is not.
 */
export const near = (shown: Decimal, expected: Decimal) =>
  toLastPlace(shown, expected) || shown.minus(expected).abs().lte(expected.abs().times('1e-9'));

function tradeOf(call: RecordedCall): Row {
  expectStatus(call, 200);
  return bodyOf(call);
}

export function listOf(call: RecordedCall): Row[] {
  expectStatus(call, 200);
  const body = call.json as Row | Row[] | null;
  const rows = Array.isArray(body) ? body : body?.models;
  if (!Array.isArray(rows))
    failAt(`${call.operationId} answered no list of trades`, call, 'a list');
  return rows as Row[];
}

const openTradeIds = async (context: ScenarioContext, productId: string) =>
  listOf(
    await context.caller.call('listTrades', {
      query: { status: 'open', product_id: productId, limit: '1000' },
    }),
  ).map((trade) => String(trade.id));

/** The one open trade a filled margin order opened, as its order and the trade list show it. */
async function checkOpened(context: ScenarioContext, order: OrderRef): Promise<Row> {
  const read = await context.caller.call('getOrder', { path: { order_id: String(order.id) } });
  expectStatus(read, 200);
  const { trade_id: tradeId, filled_quantity: filled } = bodyOf(read);
  const byOrder = await context.caller.call('listOrderTrades', {
    path: { order_id: String(order.id) },
  });
  const trades = listOf(byOrder);
  const [trade] = trades;
  const side = sideOfTrade[order.side];
  if (
    trades.length !== 1 ||
    !trade ||
    String(trade.id) !== String(tradeId) ||
    trade.status !== 'open' ||
    trade.side !== side ||
    !new Decimal(String(trade.quantity)).eq(String(filled))
  ) {
    failAt(
      `order ${order.id} lists ${trades.length} trade(s): ${JSON.stringify(trades.map(({ id, status, side, quantity }) => ({ id, status, side, quantity })))}`,
      byOrder,
      `one open ${side} trade ${String(tradeId)} of quantity ${String(filled)}`,
    );
  }
  // Fresh, the trade holds the margin its leverage asks, and half of it keeps it open.
  const { primary } = await context.market();
  const quantity = new Decimal(String(trade.quantity));
  const inBase = trade.funding_currency === primary.baseCurrency;
  const notional = inBase ? quantity : quantity.times(String(trade.open_price));
  const required = notional.div(Number(trade.leverage_level));
  const used = new Decimal(String(trade.margin_used));
  const maintenance = new Decimal(String(trade.maintenance_margin));
  if (!toLastPlace(used, required) || !toLastPlace(maintenance, required.div(2))) {
    failAt(
      `trade ${String(trade.id)} (open_price ${String(trade.open_price)}, quantity ${String(trade.quantity)}, leverage_level ${String(trade.leverage_level)}) shows margin_used ${used.toFixed()}, maintenance_margin ${maintenance.toFixed()}`,
      byOrder,
      `margin_used ${required.toFixed()}, maintenance_margin ${required.div(2).toFixed()}`,
    );
  }
  if (!(await openTradeIds(context, order.productId)).includes(String(trade.id))) {
    failAt(`GET /trades?status=open does not list trade ${String(trade.id)}`, byOrder, 'listed');
  }
  return trade;
}

/** Sets a stop loss far from the market and adds then takes back margin: each answers the trade. */
async function manage(context: ScenarioContext, trade: Row): Promise<void> {
  const market = await context.market();
  const far =
    trade.side === 'long' ? market.primary.restingBuyPrice : market.primary.restingSellPrice;
  const path = { trade_id: String(trade.id) };
  tradeOf(await context.caller.call('updateTrade', { path, body: { trade: { stop_loss: far } } }));
}

/** The caller's open trade `id`, as GET /trades lists it now, and the call that listed it. */
async function listedTrade(context: ScenarioContext, id: string) {
  const call = await context.caller.call('listTrades', {
    query: { status: 'open', limit: '1000' },
  });
  const trade = listOf(call).find((each) => String(each.id) === id);
  if (!trade) failAt(`open trade ${id} is not listed`, call, 'the trade');
  return { trade, call };
}

/**
 * adjust_margin of 1 onto `trade` and back. Added, the trade's margin and the caller's
 * reserved balance of its funding currency hold 1 more, the reserved balance details still
 * sum to it, and the liquidation price moves away from the market; taking back 2 is refused
 * naming delta; taking back 1 leaves the margin as it was.
 */
export async function checkMarginAdjusted(context: ScenarioContext, trade: Row): Promise<string> {
  const id = String(trade.id);
  const path = { trade_id: id };
  const currency = String(trade.funding_currency);
  const before = {
    trade: (await listedTrade(context, id)).trade,
    held: await reservedOf(context, currency),
  };
  const margin = new Decimal(String(before.trade.margin_used));
  const added = await context.caller.call('adjustTradeMargin', { path, body: { delta: '1' } });
  // Taken back whatever the checks find, so the closes that follow find the trade as it was.
  let restored = false;
  try {
    const grown = tradeOf(added);
    const held = await reservedOf(context, currency);
    const detailed = held.details.reduce(
      (total, detail) => total.plus(String(detail.amount)),
      new Decimal(0),
    );
    if (
      !new Decimal(String(grown.margin_used)).eq(margin.plus(1)) ||
      !held.reserved.eq(before.held.reserved.plus(1)) ||
      !detailed.eq(held.reserved)
    ) {
      failAt(
        `after adjust_margin 1, trade ${id} holds margin_used ${String(grown.margin_used)} (${margin.toFixed()} before), ${currency} reserved ${held.reserved.toFixed()} (${before.held.reserved.toFixed()} before), its details summing to ${detailed.toFixed()}`,
        held.read,
        'each 1 more, the details summing to the reserved balance',
      );
    }
    const liquidation = (row: Row) => new Decimal(String(row.liquidation_price ?? 'NaN'));
    const moved = liquidation(grown).minus(liquidation(before.trade));
    if (!(trade.side === 'long' ? moved.lt(0) : moved.gt(0))) {
      failAt(
        `adjust_margin 1 moved the liquidation_price of ${String(trade.side)} trade ${id} from ${String(before.trade.liquidation_price)} to ${String(grown.liquidation_price)}`,
        added,
        'a price further from the market',
      );
    }
    const tooMuch = await context.caller.call('adjustTradeMargin', { path, body: { delta: '-2' } });
    if (tooMuch.status !== 422 || !Array.isArray(fieldCodes(tooMuch, 'delta'))) {
      failAt(
        `taking back 2 of the 1 added answered ${tooMuch.status}`,
        tooMuch,
        '422 {"errors": {"delta": [...]}}',
      );
    }
    const back = tradeOf(
      await context.caller.call('adjustTradeMargin', { path, body: { delta: '-1' } }),
    );
    restored = true;
    if (!new Decimal(String(back.margin_used)).eq(margin)) {
      failAt(
        `taking back the 1 added leaves margin_used ${String(back.margin_used)}`,
        added,
        margin.toFixed(),
      );
    }
  } finally {
    if (!restored) await context.caller.call('adjustTradeMargin', { path, body: { delta: '-1' } });
  }
  return `trade ${id}: 1 added held in its margin and the ${currency} reserved balance, 2 refused, 1 taken back`;
}

// Every digit of a quantity 30 places long: the default precision keeps 20 significant ones.
const Exact = Decimal.clone({ precision: 100 });

/**
 * A change of `trade` the server must refuse naming `field` (its `value` finer than any step or
 * precision), after which GET /trades lists the trade with its `kept` field as before.
 */
async function checkRefusedOffStep(
  context: ScenarioContext,
  trade: Row,
  refused: { operationId: 'adjustTradeMargin' | 'closeTrade'; field: string; value: string },
  kept: string,
): Promise<string> {
  const { operationId, field, value } = refused;
  const call = await context.caller.call(operationId, {
    path: { trade_id: String(trade.id) },
    body: { [field]: value },
  });
  const documented = `422 {"errors": {"${field}": [...]}}`;
  expectStatus(call, 422, documented);
  const named = fieldCodes(call, field);
  if (!Array.isArray(named)) {
    failAt(`${field} ${value} is refused without naming ${field}`, call, documented);
  }
  const { trade: now, call: list } = await listedTrade(context, String(trade.id));
  if (String(now[kept]) !== String(trade[kept])) {
    failAt(
      `trade ${String(trade.id)} shows ${kept} ${String(now[kept])} after a refused ${operationId}`,
      list,
      `${kept} ${String(trade[kept])}, as before`,
    );
  }
  return `${field} ${value} was refused naming ${field}: ${JSON.stringify(named)}`;
}

async function checkClosePartial(context: ScenarioContext, trade: Row): Promise<string> {
  const before = new Decimal(String(trade.open_quantity));
  const part = before.div(2);
  const call = await context.caller.call('closeTrade', {
    path: { trade_id: String(trade.id) },
    body: { closed_quantity: part.toFixed() },
  });
  const after = tradeOf(call);
  const open = new Decimal(String(after.open_quantity));
  const closed = new Decimal(String(after.close_quantity)).minus(String(trade.close_quantity));
  if (after.status !== 'open' || !open.eq(before.minus(part)) || !closed.eq(part)) {
    failAt(
      `closing ${part.toFixed()} of trade ${String(trade.id)}: status ${String(after.status)}, open_quantity ${String(after.open_quantity)}, close_quantity ${String(after.close_quantity)}`,
      call,
      `open, open_quantity ${before.minus(part).toFixed()}, close_quantity up by ${part.toFixed()}`,
    );
  }
  // What the open part holds and owes falls with it: its margin, and its loans, in part repaid.
  const share = open.div(before);
  for (const field of ['margin_used', 'daily_interest']) {
    const expected = new Decimal(String(trade[field])).times(share);
    const shown = new Decimal(String(after[field]));
    if (shown.minus(expected).abs().gt(expected.abs().times('1e-9'))) {
      failAt(
        `closing ${part.toFixed()} of ${before.toFixed()} left trade ${String(trade.id)} with ${field} ${shown.toFixed()} (${String(trade[field])} before)`,
        call,
        `${field} ${expected.toFixed()}, in proportion to what is open`,
      );
    }
  }
  const pnl = new Decimal(String(after.open_pnl)).plus(String(after.close_pnl));
  if (!new Decimal(String(after.pnl)).eq(pnl)) {
    failAt(
      `closed in part, trade ${String(trade.id)} shows pnl ${String(after.pnl)}, open_pnl ${String(after.open_pnl)} and close_pnl ${String(after.close_pnl)}`,
      call,
      `pnl ${pnl.toFixed()}: open_pnl + close_pnl`,
    );
  }
  return `open_quantity ${before.toFixed()} -> ${open.toFixed()}, margin_used and daily_interest in proportion`;
}

/**
 * The trade's close_fee after its partial close against before it: up by the trade_fee
 * entries the close added in its funding currency. The scenario runs alone, so every entry
 * added meanwhile is the close's.
 */
async function checkCloseFee(context: ScenarioContext, before: BeforeClose): Promise<string> {
  const currency = String(before.trade.funding_currency);
  const known = new Set(before.fees.map((entry) => String(entry.id)));
  const added = (await entriesOf(context, currency, 'trade_fee')).filter(
    (entry) => !known.has(String(entry.id)),
  );
  const charged = added.reduce((sum, entry) => sum.minus(String(entry.amount)), new Decimal(0));
  const { trade: after, call } = await listedTrade(context, String(before.trade.id));
  const rise = new Decimal(String(after.close_fee)).minus(String(before.trade.close_fee));
  if (!rise.eq(charged)) {
    failAt(
      `trade ${String(after.id)}: close_fee ${String(before.trade.close_fee)} -> ${String(after.close_fee)}, the close was charged ${charged.toFixed()} ${currency} in ${added.length} trade_fee entries`,
      call,
      `close_fee up by ${charged.toFixed()}`,
    );
  }
  // What the rules say the close costs: its fills' notional at the caller's taker rate.
  const product = await context.caller.call('getProduct', {
    path: { product_id: String(after.product_id) },
  });
  expectStatus(product, 200);
  const inBase = bodyOf(product).base_currency === currency;
  const rate = await takerRate(context, String(after.currency_pair_code));
  const { own, rows } = await ownFillsOfProduct(context, String(after.product_id));
  const notional = rows
    .filter((fill) => !before.fillIds.has(String(fill.id)))
    .reduce((sum, fill) => {
      const quantity = new Decimal(String(fill.quantity));
      return sum.plus(inBase ? quantity : quantity.times(String(fill.price)));
    }, new Decimal(0));
  if (!charged.eq(notional.times(rate))) {
    failAt(
      `the close of trade ${String(after.id)} was charged ${charged.toFixed()} ${currency} on a notional of ${notional.toFixed()}`,
      own,
      `the notional times the taker rate ${rate.toFixed()}: ${notional.times(rate).toFixed()}`,
    );
  }
  return `trade ${String(after.id)}: close_fee up by ${charged.toFixed()} ${currency}, the notional at the taker rate`;
}

/**
 * The caller's taker rate of a margin fill of `pair`: the trade_fee rate rule whose conditions
 * hold for it, the one that names the most of them where several do.
 */
async function takerRate(context: ScenarioContext, pair: string): Promise<Decimal> {
  const call = await context.caller.call('listUserFees', { query: { fee_type: 'trade_fee' } });
  expectStatus(call, 200);
  const wanted: Record<string, string> = {
    currency_pair_code: pair,
    maker_taker: 'taker',
    trading_type: 'margin',
  };
  const holding = ((Array.isArray(call.json) ? call.json : []) as Row[])
    .filter((rule) => rule.fee_type === 'trade_fee' && rule.charge_type === 'rate')
    .map((rule) => {
      const conditions = (rule.conditions ?? {}) as Row;
      const named = Object.entries(wanted).map(([key, value]) =>
        conditions[key] === null || conditions[key] === undefined
          ? 0
          : conditions[key] === value
            ? 1
            : Number.NaN,
      );
      return { rule, named: named.reduce((sum, n) => sum + n, 0) };
    })
    .filter((each) => !Number.isNaN(each.named))
    .sort((a, b) => b.named - a.named);
  const [best] = holding;
  if (!best) failAt(`no taker trade_fee rate rule holds for a margin fill of ${pair}`, call, 'one');
  return new Decimal(String(best.rule.charge_value));
}

/** What the trade's partial close is read against: what was there before it. */
interface BeforeClose {
  trade: Row;
  fees: Row[];
  paid: Row[];
  fillIds: Set<string>;
}

/**
 * The fills the partial close added to `executions/me` realized, each, what its cfd_pnl entry
 * paid: their pnl sums to the entries naming the trade that the close added. The fills of
 * the order that opened the trade realized nothing. The scenario runs alone, so every fill
 * and entry added meanwhile is the close's.
 */
async function checkClosePnl(
  context: ScenarioContext,
  before: BeforeClose,
  order: OrderRef,
): Promise<string> {
  const tradeId = String(before.trade.id);
  const currency = String(before.trade.funding_currency);
  const known = new Set(before.paid.map((entry) => String(entry.id)));
  const paid = naming(await entriesOf(context, currency, 'cfd_pnl'), 'Trade', tradeId).filter(
    (entry) => !known.has(String(entry.id)),
  );
  const owed = amountOf(paid);
  const { own: call, rows: fills } = await ownFillsOfProduct(context, order.productId);
  const closing = fills.filter((fill) => !before.fillIds.has(String(fill.id)));
  if (closing.length === 0) failAt(`the close of trade ${tradeId} made no fill`, call, 'its fills');
  let realized = new Decimal(0);
  for (const fill of closing) {
    if (fill.target !== 'margin' || typeof fill.pnl !== 'string') {
      failAt(
        `fill ${String(fill.id)} of the close of trade ${tradeId}: target ${String(fill.target)}, pnl ${String(fill.pnl)}`,
        call,
        'a margin fill with its pnl',
      );
    }
    realized = realized.plus(fill.pnl);
  }
  if (!realized.eq(owed)) {
    failAt(
      `the close's ${closing.length} fill(s) of trade ${tradeId} show pnl ${realized.toFixed()}, its ${paid.length} cfd_pnl entries paid ${owed.toFixed()} ${currency}`,
      call,
      `pnl summing to ${owed.toFixed()}`,
    );
  }
  const opening = fills.filter((fill) => String(fill.order_id) === String(order.id));
  const notZero = opening.find((fill) => !new Decimal(String(fill.pnl ?? 'NaN')).isZero());
  if (notZero) {
    failAt(
      `fill ${String(notZero.id)} that opened trade ${tradeId} shows pnl ${String(notZero.pnl)}`,
      call,
      'pnl 0',
    );
  }
  return `trade ${tradeId}: the close's ${closing.length} fill(s) realized ${realized.toFixed()} ${currency}, as paid`;
}

async function checkCloseAll(context: ScenarioContext, trade: Row, productId: string) {
  const other = trade.side === 'long' ? 'short' : 'long';
  const others = await context.caller.call('closeAllTrades', { body: { side: other } });
  const closedOther = listOf(others).some((each) => String(each.id) === String(trade.id));
  if (closedOther || !(await openTradeIds(context, productId)).includes(String(trade.id))) {
    failAt(
      `close_all of the ${other} trades closed ${String(trade.side)} trade ${String(trade.id)}`,
      others,
      `the ${String(trade.side)} trade left open`,
    );
  }
  const call = await context.caller.call('closeAllTrades', { body: { side: trade.side } });
  const answered = listOf(call).find((each) => String(each.id) === String(trade.id));
  if (answered?.status !== 'closed' || !new Decimal(String(answered.open_quantity)).isZero()) {
    failAt(`close_all does not answer trade ${String(trade.id)} closed`, call, 'the trade, closed');
  }
  if ((await openTradeIds(context, productId)).includes(String(trade.id))) {
    failAt(`trade ${String(trade.id)} is still listed open after close_all`, call, 'not open');
  }
  return `trade ${String(trade.id)} closed by close_all`;
}

/** How a fixture's margin order is placed: a buy of the smallest quantity, quote-funded. */
export interface MarginOrder {
  /** Times the product's smallest quantity. */
  lots?: number;
  side?: OrderRef['side'];
  /** The base currency to fund it in; the quote currency when absent. */
  fundingCurrency?: string;
}

/**
 * A margin order of the primary product, placed as `order` says, filled through the adapter,
 * or undefined with each of `covers` recorded as skipped when the server gives none (a Skip).
 */
export async function filledMarginOrderOrSkip(
  context: ScenarioContext,
  covers: readonly string[],
  order: MarginOrder = {},
): Promise<OrderRef | undefined> {
  const { lots = 1, side = 'buy', fundingCurrency } = order;
  try {
    const market = await context.market();
    if (!market.primary.marginEnabled) throw new Skip('no product with margin trading');
    return await context.adapter.placeFilledOrder(
      context.adapterContext,
      {
        product: market.primary,
        side,
        tradingType: 'margin',
        clientOrderId: context.clientOrderId(),
        quantity: new Decimal(market.primary.quantity).times(lots).toFixed(),
        ...(fundingCurrency === undefined ? {} : { fundingCurrency }),
      },
      market,
    );
  } catch (error) {
    if (!(error instanceof Skip)) throw error;
    for (const requirementId of covers) {
      context.evidence.record({
        requirementId,
        outcome: 'skip',
        message: `no filled margin order: ${error.message}`,
      });
    }
    return undefined;
  }
}

const trades: Scenario = {
  name: 'a trade opened by a margin fill, closed in part, then by close_all',
  profile: 'orders',
  covers: covered,
  // close_all closes every open trade of the side: no other scenario's may be open meanwhile.
  exclusive: true,
  async run(context) {
    // Two of the smallest quantity: half of it is a close the exchange takes.
    const order = await filledMarginOrderOrSkip(context, covered, { lots: 2 });
    if (!order) return;
    let trade: Row | undefined;
    await context.evidence.check(opened, async () => {
      trade = await checkOpened(context, order);
      return `order ${order.id} opened trade ${String(trade.id)}`;
    });
    if (!trade) {
      const [mine] = listOf(
        await context.caller.call('listOrderTrades', { path: { order_id: String(order.id) } }),
      );
      trade = mine;
    }
    if (!trade) {
      for (const requirementId of covered.filter((id) => id !== opened)) {
        context.evidence.record({ requirementId, outcome: 'skip', message: 'no trade to close' });
      }
      return;
    }
    const open = trade;
    // 1 and 1e-30 more: finer than any currency's precision and any quantity step.
    const offStep = (value: Decimal.Value) => new Exact(value).plus('1e-30').toFixed();
    await context.evidence.check(marginOffStep, () =>
      checkRefusedOffStep(
        context,
        open,
        { operationId: 'adjustTradeMargin', field: 'delta', value: offStep(1) },
        'margin_used',
      ),
    );
    await manage(context, open);
    await context.evidence.check(marginAdjusted, () => checkMarginAdjusted(context, open));
    const currency = String(open.funding_currency);
    const before: BeforeClose = {
      trade: open,
      fees: await entriesOf(context, currency, 'trade_fee'),
      paid: await entriesOf(context, currency, 'cfd_pnl'),
      fillIds: new Set(
        (await ownFillsOfProduct(context, order.productId)).rows.map((fill) => String(fill.id)),
      ),
    };
    await context.evidence.check(closeOffStep, () =>
      checkRefusedOffStep(
        context,
        open,
        {
          operationId: 'closeTrade',
          field: 'closed_quantity',
          value: offStep(new Exact(String(open.open_quantity)).div(2)),
        },
        'open_quantity',
      ),
    );
    await context.evidence.check(closePartial, () => checkClosePartial(context, open));
    await context.evidence.check(closeFee, () => checkCloseFee(context, before));
    await context.evidence.check(closePnl, () => checkClosePnl(context, before, order));
    await context.evidence.check(closeAll, () => checkCloseAll(context, open, order.productId));
  },
};

export const tradeScenarios: Scenario[] = [trades];

/** The trade `order` opened, read through the order. */
export async function tradeOpenedBy(context: ScenarioContext, order: OrderRef) {
  const call = await context.caller.call('listOrderTrades', {
    path: { order_id: String(order.id) },
  });
  const [trade] = listOf(call);
  if (!trade) failAt(`order ${order.id} lists no trade`, call, 'the trade the order opened');
  return { trade, call };
}
