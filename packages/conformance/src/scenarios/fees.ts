import { Decimal } from 'decimal.js';
import type { OrderRef } from '../engine/adapter.js';
import { bodyOf, expectStatus, failAt } from '../engine/context.js';
import { ownFillsOf } from './executions.js';
import { filledOrderOrSkip } from './orders.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;

const matchesFill = 'FEE-ESTIMATE-MATCHES-FILL';
const orderFeeSums = 'ORDER-FEE-SUMS-CHARGES';

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
  const charged = ((Array.isArray(history.json) ? history.json : []) as Row[]).filter(
    (entry) =>
      entry.source_object_type === 'Execution' &&
      String(entry.source_object_id) === String(fill.id),
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
  // The schedule and the tier are read for their shape, which the response check holds.
  expectStatus(await context.caller.call('listFees', {}), 200);
  expectStatus(await context.caller.call('getFeeTier', {}), 200);
  return `fill ${String(fill.id)}: estimated and charged ${String(estimate.amount)} ${String(estimate.currency)} as ${took ? 'taker' : 'maker'}`;
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

const feeEstimate: Scenario = {
  name: "a fill's fee estimated and read back as its trade_fee entry and its order's order_fee",
  profile: 'orders',
  covers: [matchesFill, orderFeeSums],
  async run(context) {
    const order = await filledOrderOrSkip(context, [matchesFill, orderFeeSums]);
    if (!order) return;
    await context.evidence.check(matchesFill, () => checkEstimate(context, order));
    await context.evidence.check(orderFeeSums, () => checkOrderFee(context, order));
  },
};

export const feeScenarios: Scenario[] = [feeEstimate];
