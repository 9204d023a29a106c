import { Decimal } from 'decimal.js';
import type { OrderRef } from '../engine/adapter.js';
import { bodyOf, expectStatus } from '../engine/context.js';
import { Failure, type RecordedCall } from '../engine/outcome.js';
import { filledOrderOrSkip } from './orders.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;

const matchesFill = 'FEE-ESTIMATE-MATCHES-FILL';

function fail(message: string, call: RecordedCall, documented: string): never {
  throw new Failure(message, { call, documented, received: call.responseText.slice(0, 300) });
}

/** Decimal strings compared as the numbers they are; the fee entry's amount is a debit. */
const sameAmount = (debit: unknown, fee: unknown) => {
  try {
    return new Decimal(String(debit)).neg().eq(String(fee));
  } catch {
    return false;
  }
};

async function checkEstimate(context: ScenarioContext, order: OrderRef): Promise<string> {
  const own = await context.caller.call('listOwnExecutions', {
    query: { product_id: order.productId, with_details: '1', limit: '200' },
  });
  expectStatus(own, 200);
  const fill = ((bodyOf(own).models as Row[] | undefined) ?? []).find(
    (row) => String(row.order_id) === String(order.id),
  );
  if (!fill) fail(`no fill of order ${order.id} in executions/me`, own, 'its fills');
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
  if (!estimate) fail('the estimate has no trade_fee option', estimated, 'a trade_fee option');
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
    fail(
      `fill ${String(fill.id)} was charged ${seen.join(', ') || 'nothing'}, the estimate says ${String(estimate.amount)} ${String(estimate.currency)}`,
      estimated,
      'the amount and currency of the trade_fee entry',
    );
  }
  const rules = await context.caller.call('listUserFees', { query: { fee_type: 'trade_fee' } });
  expectStatus(rules, 200);
  const listed = ((Array.isArray(rules.json) ? rules.json : []) as Row[]).some(
    (rule) => rule.fee_type === 'trade_fee' && String(rule.product_id) === String(order.productId),
  );
  if (!listed) fail(`no trade_fee rule for product ${order.productId}`, rules, 'its rule');
  // The schedule and the tier are read for their shape, which the response check holds.
  expectStatus(await context.caller.call('listFees', {}), 200);
  expectStatus(await context.caller.call('getFeeTier', {}), 200);
  return `fill ${String(fill.id)}: estimated and charged ${String(estimate.amount)} ${String(estimate.currency)} as ${took ? 'taker' : 'maker'}`;
}

const feeEstimate: Scenario = {
  name: "a fill's fee estimated and read back as its trade_fee entry",
  profile: 'orders',
  covers: [matchesFill],
  async run(context) {
    const order = await filledOrderOrSkip(context, [matchesFill]);
    if (!order) return;
    await context.evidence.check(matchesFill, () => checkEstimate(context, order));
  },
};

export const feeScenarios: Scenario[] = [feeEstimate];
