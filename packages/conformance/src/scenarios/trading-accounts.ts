import { Decimal } from 'decimal.js';
import { type OrderRef, type ProductInfo, restingBuy } from '../engine/adapter.js';
import { bodyOf, expectStatus, failAt, sameDecimal } from '../engine/context.js';
import { Skip } from '../engine/outcome.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;

export const follows = 'TRADING-ACCOUNT-FOLLOWS-POSITIONS';

const sum = (rows: Row[], field: string) =>
  rows.reduce((total, row) => total.plus(String(row[field])), new Decimal(0));

/** The caller's trading account of `product`, as the list shows it. */
async function accountOf(context: ScenarioContext, product: ProductInfo): Promise<Row> {
  const listed = await context.caller.call('listTradingAccounts', {});
  expectStatus(listed, 200);
  const accounts = Array.isArray(listed.json) ? (listed.json as Row[]) : [];
  const account = accounts.find((each) => String(each.product_id) === product.id);
  if (!account) {
    failAt(`no trading account of margin product ${product.id}`, listed, 'one per margin product');
  }
  return account;
}

/**
 * The account read once, and its open trades of its product in its funding currency read on
 * either side of it: with nothing else trading, both reads see the same mark price.
 */
async function figures(context: ScenarioContext, accountId: string, productId: string) {
  const read = await context.caller.call('getTradingAccount', {
    path: { trading_account_id: accountId },
  });
  expectStatus(read, 200);
  const account = bodyOf(read);
  const listed = await context.caller.call('listTrades', {
    query: {
      status: 'open',
      product_id: productId,
      funding_currency: String(account.funding_currency),
      limit: '1000',
    },
  });
  expectStatus(listed, 200);
  const body = listed.json as Row | Row[] | null;
  const trades = ((Array.isArray(body) ? body : body?.models) ?? []) as Row[];
  return { read, account, trades };
}

/** The caller's balance of `currency`, as GET /accounts/balance answers it. */
async function fundingBalance(context: ScenarioContext, currency: string): Promise<Decimal> {
  const read = await context.caller.call('listAccountBalances', {});
  expectStatus(read, 200);
  const rows = (Array.isArray(read.json) ? read.json : []) as Row[];
  return new Decimal(String(rows.find((row) => row.currency === currency)?.balance ?? 'NaN'));
}

/** Checks the account's figures against its open trades; returns its margin and those trades. */
async function checkFigures(
  context: ScenarioContext,
  accountId: string,
  productId: string,
  moment: string,
): Promise<{ margin: Decimal; trades: Row[] }> {
  const { read, account, trades } = await figures(context, accountId, productId);
  const pnl = sum(trades, 'open_pnl');
  const margin = sum(trades, 'margin_used');
  const openOf = (side: string) =>
    sum(
      trades.filter((trade) => trade.side === side),
      'open_quantity',
    );
  const equity = new Decimal(String(account.balance)).plus(pnl);
  const expected: Record<string, Decimal> = {
    pnl,
    margin,
    equity,
    free_margin: equity.minus(margin),
    margin_percent: equity.gt(0)
      ? margin.div(equity).toDecimalPlaces(16, Decimal.ROUND_DOWN)
      : new Decimal(0),
    position: openOf('long').minus(openOf('short')),
    balance: await fundingBalance(context, String(account.funding_currency)),
  };
  const wrong = Object.entries(expected).filter(
    ([field, value]) => !new Decimal(String(account[field])).eq(value),
  );
  if (wrong.length > 0) {
    failAt(
      `${moment}, trading account ${accountId} shows ${wrong.map(([field]) => `${field} ${String(account[field])}`).join(', ')}`,
      read,
      `from its ${trades.length} open trade(s) and balance ${String(account.balance)}: ${wrong.map(([field, value]) => `${field} ${value.toFixed()}`).join(', ')}`,
    );
  }
  // The list shows the account as a read does.
  const listed = await context.caller.call('listTradingAccounts', {});
  expectStatus(listed, 200);
  const row = (Array.isArray(listed.json) ? (listed.json as Row[]) : []).find(
    (each) => String(each.id) === accountId,
  );
  const differ = [
    'pnl',
    'margin',
    'equity',
    'free_margin',
    'margin_percent',
    'position',
    'balance',
  ].filter((field) => !sameDecimal(row?.[field], account[field]));
  if (differ.length > 0) {
    failAt(
      `${moment}, trading account ${accountId} is listed with ${differ.map((field) => `${field} ${String(row?.[field])}`).join(', ')}`,
      listed,
      `as it reads: ${differ.map((field) => `${field} ${String(account[field])}`).join(', ')}`,
    );
  }
  return { margin, trades };
}

/** The caller's trading account of `product` against its open trades there, at `moment`. */
export async function checkAccountFigures(
  context: ScenarioContext,
  product: ProductInfo,
  moment: string,
): Promise<string> {
  const id = String((await accountOf(context, product)).id);
  const { trades } = await checkFigures(context, id, product.id, moment);
  return `${moment}, trading account ${id} follows its ${trades.length} open trade(s)`;
}

/** Sets the account's leverage level to `level`, which the answer and a read must then show. */
async function setLeverage(context: ScenarioContext, id: string, level: number): Promise<void> {
  const set = await context.caller.call('updateTradingAccount', {
    path: { trading_account_id: id },
    body: { trading_account: { leverage_level: level } },
  });
  expectStatus(set, 200);
  const read = await context.caller.call('getTradingAccount', {
    path: { trading_account_id: id },
  });
  expectStatus(read, 200);
  for (const [call, shown] of [
    [set, bodyOf(set).leverage_level],
    [read, bodyOf(read).leverage_level],
  ] as const) {
    if (Number(shown) !== level) {
      failAt(
        `trading account ${id} set to leverage_level ${level} shows ${String(shown)}`,
        call,
        `leverage_level ${level}`,
      );
    }
  }
}

/**
 * The level is set to another and back: the scenario runs alone, so no other scenario's
 * order meets the other level, and the account is left as it was found. Meanwhile a resting
 * margin buy that names no leverage_level takes the other level.
 */
async function checkLeverageSet(
  context: ScenarioContext,
  id: string,
  level: number,
  product: ProductInfo,
) {
  const other = level === 2 ? 3 : 2;
  await setLeverage(context, id, other);
  const placed = await context.caller.call('createOrder', {
    body: { ...restingBuy(product, context.clientOrderId()), trading_type: 'margin' },
  });
  expectStatus(placed, 200);
  const order = bodyOf(placed);
  try {
    if (Number(order.leverage_level) !== other) {
      failAt(
        `a margin buy naming no leverage_level, placed with trading account ${id} at ${other}, has leverage_level ${String(order.leverage_level)}`,
        placed,
        `the account's leverage_level, ${other}`,
      );
    }
  } finally {
    await context.caller.call('cancelOrder', { path: { order_id: String(order.id) } });
  }
  await setLeverage(context, id, level);
}

/** The trade a filled margin order opened. */
async function tradeOf(context: ScenarioContext, order: OrderRef): Promise<Row> {
  const call = await context.caller.call('listOrderTrades', {
    path: { order_id: String(order.id) },
  });
  expectStatus(call, 200);
  const [trade] = Array.isArray(call.json) ? (call.json as Row[]) : [];
  if (!trade) failAt(`order ${order.id} opened no trade`, call, 'one open trade');
  return trade;
}

async function closeTrade(context: ScenarioContext, trade: Row, quantity?: Decimal) {
  const closed = await context.caller.call('closeTrade', {
    path: { trade_id: String(trade.id) },
    body: quantity ? { closed_quantity: quantity.toFixed() } : {},
  });
  expectStatus(closed, 200);
}

async function checkFollows(context: ScenarioContext, product: ProductInfo): Promise<string> {
  const account = await accountOf(context, product);
  const id = String(account.id);
  await checkLeverageSet(context, id, Number(account.leverage_level), product);
  const before = await checkFigures(context, id, product.id, 'before the order');
  // Two of the smallest quantity: half of it is a close the exchange takes.
  const order = await context.adapter.placeFilledOrder(
    context.adapterContext,
    {
      product,
      side: 'buy',
      tradingType: 'margin',
      clientOrderId: context.clientOrderId(),
      quantity: new Decimal(product.quantity).times(2).toFixed(),
    },
    await context.market(),
  );
  const trade = await tradeOf(context, order);
  try {
    const { margin: open } = await checkFigures(context, id, product.id, 'with the trade open');
    // A server may add the fill to a trade already open: only what the trade gained counts.
    const held = before.trades.find((each) => String(each.id) === String(trade.id))?.margin_used;
    const added = new Decimal(String(trade.margin_used)).minus(String(held ?? 0));
    if (!open.eq(before.margin.plus(added))) {
      const read = await figures(context, id, product.id);
      failAt(
        `trading account ${id} holds margin ${open.toFixed()} with trade ${String(trade.id)} open, ${before.margin.toFixed()} before`,
        read.read,
        `margin up by the trade's margin_used ${added.toFixed()}`,
      );
    }
    // A close sells into the bids: the last price, and with it the mark price, moves off the
    // price the trade opened at, so the half left open has a P&L the account must show.
    await closeTrade(context, trade, new Decimal(String(trade.open_quantity)).div(2));
    await checkFigures(context, id, product.id, 'with half the trade closed');
  } finally {
    await closeTrade(context, trade);
  }
  await checkFigures(context, id, product.id, 'after the trade closed');
  return `account ${id} followed trade ${String(trade.id)} opened, half closed and closed`;
}

const tradingAccounts: Scenario = {
  name: "a trading account's figures following a position and the mark price",
  profile: 'orders',
  covers: [follows],
  // Its figures sum every open trade of the product: no other scenario's may move meanwhile.
  exclusive: true,
  async run(context) {
    await context.evidence.check(follows, async () => {
      const market = await context.market();
      if (!market.primary.marginEnabled) throw new Skip('no product with margin trading');
      return checkFollows(context, market.primary);
    });
  },
};

export const tradingAccountScenarios: Scenario[] = [tradingAccounts];
