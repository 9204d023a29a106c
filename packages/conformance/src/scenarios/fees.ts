import { Decimal } from 'decimal.js';
import type { OrderRef } from '../engine/adapter.js';
import { bodyOf, expectStatus, failAt } from '../engine/context.js';
import { Skip } from '../engine/outcome.js';
import { ownFillsOf } from './executions.js';
import { naming } from './ledger.js';
import { filledOrderOrSkip } from './orders.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { near } from './trades.js';

type Row = Record<string, unknown>;

const matchesFill = 'FEE-ESTIMATE-MATCHES-FILL';
const orderFeeSums = 'ORDER-FEE-SUMS-CHARGES';
const volumeFollows = 'FEE-TIER-VOLUME-FOLLOWS-FILLS';

/** Decimal strings compared as the numbers they are; the fee entry's amount is a debit. */
const sameAmount = (debit: unknown, fee: unknown) => {
  try {
    return new Decimal(String(debit)).neg().eq(String(fee));
  } catch {
    return false;
  }
};

async function checkEstimate(context: ScenarioContext, order: OrderRef): Promise<string> {
  const { own, mine } = await ownFillsOf(context, order);
  const [fill] = mine as [Row];
  // The estimate is asked for the fill as executions/me shows it: a fill shown without its
  // side, quantity or price is that list's failure, not the estimate's.
  const missing = ['my_side', 'taker_side', 'quantity', 'price'].filter(
    (field) => fill[field] === undefined || fill[field] === null,
  );
  if (missing.length > 0) {
    failAt(
      `fill ${String(fill.id)} in executions/me has no ${missing.join(', ')} to ask an estimate for`,
      own,
      'my_side, taker_side, quantity and price',
    );
  }
  // A market order takes and a post-only order rests, whatever the book holds by now.
  const took = fill.taker_side === fill.my_side;
  const estimated = await context.caller.call('estimateFee', {
    body: {
      product_id: order.productId,
      side: fill.my_side,
      quantity: String(fill.quantity),
      price: String(fill.price),
      order_type: took ? 'market' : 'limit_post_only',
    },
  });
  expectStatus(estimated, 200);
  const options = ((bodyOf(estimated).fee_options as Row | undefined)?.default as Row[]) ?? [];
  const estimate = options.find((option) => option.fee_type === 'trade_fee');
  if (!estimate) failAt('the estimate has no trade_fee option', estimated, 'a trade_fee option');
  const history = await context.caller.call('listBalanceHistory', {
    query: { source_action: 'trade_fee', limit: '1000' },
  });
  expectStatus(history, 200);
  const charged = naming(
    (Array.isArray(history.json) ? history.json : []) as Row[],
    'Execution',
    fill.id,
  );
  const same = charged.find(
    (entry) => entry.currency === estimate.currency && sameAmount(entry.amount, estimate.amount),
  );
  if (!same) {
    const seen = charged.map((entry) => `${String(entry.amount)} ${String(entry.currency)}`);
    failAt(
      `fill ${String(fill.id)} was charged ${seen.join(', ') || 'nothing'}, the estimate says ${String(estimate.amount)} ${String(estimate.currency)}`,
      estimated,
      'the amount and currency of the trade_fee entry',
    );
  }
  const product = await context.caller.call('getProduct', {
    path: { product_id: String(order.productId) },
  });
  expectStatus(product, 200);
  const pair = String(bodyOf(product).currency_pair_code);
  const rules = await context.caller.call('listUserFees', { query: { fee_type: 'trade_fee' } });
  expectStatus(rules, 200);
  const role = took ? 'taker' : 'maker';
  const listed = ((Array.isArray(rules.json) ? rules.json : []) as Row[]).some((rule) => {
    const conditions = (rule.conditions ?? {}) as Row;
    return (
      rule.fee_type === 'trade_fee' &&
      conditions.currency_pair_code === pair &&
      (conditions.maker_taker === role || conditions.maker_taker === null)
    );
  });
  if (!listed) failAt(`no ${role} trade_fee rule for ${pair}`, rules, 'its rule');
  // The schedule is read for its shape, which the response check holds; the tier is read by
  // the volume check of the same scenario.
  expectStatus(await context.caller.call('listFees', {}), 200);
  const roles = await checkLimitRoles(context);
  return `fill ${String(fill.id)}: estimated and charged ${String(estimate.amount)} ${String(estimate.currency)} as ${took ? 'taker' : 'maker'}; ${roles}`;
}

/**
 * A plain limit buy is estimated as the taker it would be at a price that crosses the book, and
 * as the maker it would be at one that rests: as a market buy, then as a post-only buy, of the
 * same price and quantity.
 */
async function checkLimitRoles(context: ScenarioContext): Promise<string> {
  const { primary: product } = await context.market();
  const estimated = async (order_type: string, price: string) => {
    const call = await context.caller.call('estimateFee', {
      body: { product_id: product.id, side: 'buy', quantity: product.quantity, price, order_type },
    });
    expectStatus(call, 200);
    const options = ((bodyOf(call).fee_options as Row | undefined)?.default as Row[]) ?? [];
    const fee = options.find((option) => option.fee_type === 'trade_fee');
    return { call, fee: `${String(fee?.amount)} ${String(fee?.currency)}` };
  };
  const roles = [
    [product.crossingBuyPrice, 'market', 'taker'],
    [product.restingBuyPrice, 'limit_post_only', 'maker'],
  ] as const;
  for (const [price, known, role] of roles) {
    const limit = await estimated('limit', price);
    const as = await estimated(known, price);
    if (limit.fee !== as.fee) {
      failAt(
        `a limit buy at ${price} is estimated ${limit.fee}, a ${known} buy there ${as.fee}`,
        limit.call,
        `the ${role}'s fee: at ${price} the order would ${role === 'taker' ? 'take the book' : 'rest'}`,
      );
    }
  }
  return 'a limit buy estimated as the taker where it crosses the book, as the maker where it rests';
}

/** Every sum of one amount per fill, each fill's amounts its choices: at most two each. */
function feeSums(perFill: string[][]): Decimal[] {
  let sums = [new Decimal(0)];
  for (const amounts of perFill) {
    sums = sums.flatMap((sum) => amounts.map((amount) => sum.plus(amount)));
    // Fills with two entries apiece double the sums: a few fills of an order are checked.
    if (sums.length > 1024) break;
  }
  return sums;
}

/**
 * The order's `order_fee` against its owner's trade_fee entries for its fills. An order is
 * charged in one currency. Where the caller was both sides of a fill its other order may be
 * charged in that currency too, against the same fill: such a fill counts either entry, and
 * the order_fee must be one of the sums so made.
 */
async function checkOrderFee(context: ScenarioContext, order: OrderRef): Promise<string> {
  const fills = (await ownFillsOf(context, order)).mine.map((row) => String(row.id));
  const history = await context.caller.call('listBalanceHistory', {
    query: { source_action: 'trade_fee', limit: '1000' },
  });
  expectStatus(history, 200);
  const byCurrency = new Map<string, Row[]>();
  for (const entry of (Array.isArray(history.json) ? history.json : []) as Row[]) {
    if (entry.source_object_type !== 'Execution') continue;
    if (!fills.includes(String(entry.source_object_id))) continue;
    const currency = String(entry.currency);
    byCurrency.set(currency, [...(byCurrency.get(currency) ?? []), entry]);
  }
  const read = await context.caller.call('getOrder', { path: { order_id: String(order.id) } });
  expectStatus(read, 200);
  const shown = bodyOf(read).order_fee;
  const sums: string[] = [];
  for (const [currency, entries] of byCurrency) {
    const perFill = fills.map((fill) =>
      entries.filter((entry) => String(entry.source_object_id) === fill).map((e) => e.amount),
    );
    if (perFill.some((amounts) => amounts.length === 0 || amounts.length > 2)) {
      const odd = fills.filter((_, n) => (perFill[n]?.length ?? 0) > 2);
      if (odd.length > 0) sums.push(`fill ${odd.join(', ')} more than twice in ${currency}`);
      continue;
    }
    const possible = feeSums(perFill.map((amounts) => amounts.map(String)));
    const matching = possible.find((sum) => sameAmount(sum.toFixed(), shown));
    if (matching !== undefined) {
      return `order ${String(order.id)}: order_fee ${String(shown)} ${currency} over ${fills.length} fill(s)`;
    }
    sums.push(...possible.map((sum) => `${sum.neg().toFixed()} ${currency}`));
  }
  failAt(
    `order ${String(order.id)} shows order_fee ${String(shown)}, its fills were charged ${sums.join(' or ') || 'nothing'}`,
    read,
    "the sum of the order's trade_fee entries",
  );
}

/** The caller's fee tier: its volume on spot and margin products, and the currency of it. */
async function tierVolume(context: ScenarioContext) {
  const call = await context.caller.call('getFeeTier', {});
  expectStatus(call, 200);
  const tier = bodyOf(call);
  return {
    call,
    volume: new Decimal(String(tier.currency_pair_volume)),
    inCurrency: String(tier.in_currency),
  };
}

/**
 * Each of `codes`' rate in JPY as the caller's fiat accounts show it (`exchange_rate`), the
 * same for one code as another when they are one currency; a Skip when one is not shown.
 */
async function fiatRates(context: ScenarioContext, codes: string[]) {
  const [first, ...rest] = codes;
  if (rest.every((code) => code === first)) return { of: () => new Decimal(1), shown: '' };
  const call = await context.caller.call('getAccounts', {});
  expectStatus(call, 200);
  const fiat = ((bodyOf(call).fiat_accounts as Row[] | undefined) ?? []).filter(
    (account) => account.exchange_rate !== undefined && account.exchange_rate !== null,
  );
  const rates = new Map(fiat.map((account) => [String(account.currency), account.exchange_rate]));
  const missing = codes.find((code) => !rates.has(code));
  if (missing) throw new Skip(`no fiat account of ${missing} shows its exchange_rate`);
  return {
    of: (code: string) => new Decimal(String(rates.get(code))),
    shown: ` (exchange rates ${codes.map((code) => `${code} ${String(rates.get(code))}`).join(', ')})`,
  };
}

/**
 * The tier's currency_pair_volume, read before the order filled, is up by the value of its
 * fills in in_currency, at the exchange rates of the quote currency and in_currency.
 */
async function checkTierVolume(
  context: ScenarioContext,
  order: OrderRef,
  before: Decimal,
): Promise<string> {
  const { mine } = await ownFillsOf(context, order);
  const product = await context.caller.call('getProduct', {
    path: { product_id: String(order.productId) },
  });
  expectStatus(product, 200);
  const quote = String(bodyOf(product).quoted_currency);
  const after = await tierVolume(context);
  const rates = await fiatRates(context, [quote, after.inCurrency]);
  const traded = (mine as Row[]).reduce(
    (sum, fill) => sum.plus(new Decimal(String(fill.quantity)).times(String(fill.price))),
    new Decimal(0),
  );
  const value = traded.times(rates.of(quote)).div(rates.of(after.inCurrency));
  const rose = after.volume.minus(before);
  if (!near(rose, value)) {
    failAt(
      `currency_pair_volume rose by ${rose.toFixed()} ${after.inCurrency} over order ${String(order.id)}'s fills of ${traded.toFixed()} ${quote}`,
      after.call,
      `up by their quantity times price, ${value.toFixed()} ${after.inCurrency}${rates.shown}`,
    );
  }
  return `currency_pair_volume up by ${rose.toFixed()} ${after.inCurrency}, the value of order ${String(order.id)}'s fills`;
}

const feeEstimate: Scenario = {
  name: "a fill's fee estimated and read back as its trade_fee entry and its order's order_fee",
  profile: 'orders',
  covers: [matchesFill, orderFeeSums, volumeFollows],
  // The tier's volume counts every fill of the caller's: none but its own may be made meanwhile.
  exclusive: true,
  async run(context) {
    const before = await tierVolume(context);
    const order = await filledOrderOrSkip(context, [matchesFill, orderFeeSums, volumeFollows]);
    if (!order) return;
    await context.evidence.check(matchesFill, () => checkEstimate(context, order));
    await context.evidence.check(orderFeeSums, () => checkOrderFee(context, order));
    await context.evidence.check(volumeFollows, () =>
      checkTierVolume(context, order, before.volume),
    );
  },
};

export const feeScenarios: Scenario[] = [feeEstimate];
