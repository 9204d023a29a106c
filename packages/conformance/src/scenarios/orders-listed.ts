import { hasFlag } from '@exchange-kit/contract/state-tables';
import type { OrderFixture, OrderRef } from '../engine/adapter.js';
import { orderListFilterNames, orderListFilterRequirementId } from '../engine/catalog.js';
import { bodyOf, expectStatus, failAt } from '../engine/context.js';
import { Skip } from '../engine/outcome.js';
import { halfFilledBuy } from './order-trades.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { listOf, type Row } from './trades.js';

/** Whether GET /orders with `filter` at `value` lists `order`: `live` names every open order. */
const picks = (filter: string, value: string, order: Row) =>
  filter === 'status' && value === 'live'
    ? hasFlag('order', String(order.status), 'open')
    : String(order[filter]) === value;

/**
 * Live orders of the caller's of each kind the filters tell apart, as read back: a spot buy, a
 * margin buy funded in the quote currency and one in the base currency, a spot buy of the
 * second product, and a spot buy half filled by the caller's own sell (when the server fills
 * one order of a user against another).
 */
async function ordersOfEachKind(context: ScenarioContext): Promise<Row[]> {
  const { primary, secondary } = await context.market();
  const fixtures: Partial<Omit<OrderFixture, 'clientOrderId'>>[] = [{}];
  if (primary.marginEnabled) {
    fixtures.push(
      { tradingType: 'margin' },
      { tradingType: 'margin', fundingCurrency: primary.baseCurrency },
    );
  }
  if (secondary) fixtures.push({ product: secondary });
  const refs: OrderRef[] = [];
  for (const fixture of fixtures) refs.push(await context.liveOrder(fixture));
  try {
    refs.push((await halfFilledBuy(context, primary)).ref);
  } catch (error) {
    if (!(error instanceof Skip)) throw error;
  }
  const rows: Row[] = [];
  for (const ref of refs) {
    const read = await context.caller.call('getOrder', { path: { order_id: String(ref.id) } });
    expectStatus(read, 200);
    rows.push(bodyOf(read));
  }
  return rows;
}

/**
 * GET /orders with `filter` at each value `orders` have: every order of them it names is
 * listed, and every order listed is one it names.
 */
async function checkFilter(context: ScenarioContext, filter: string, orders: Row[]) {
  const values = [
    ...new Set(
      orders
        .map((order) => (filter === 'status' ? 'live' : order[filter]))
        .filter((value) => value !== null && value !== undefined)
        .map(String),
    ),
  ];
  if (values.length === 0) throw new Skip(`none of the orders made has a ${filter}`);
  for (const value of values) {
    const call = await context.caller.call('listOrders', {
      query: { [filter]: value, limit: '1000' },
    });
    const listed = listOf(call);
    const ids = new Set(listed.map((order) => String(order.id)));
    const stray = listed.find((order) => !picks(filter, value, order));
    const missing = orders.find(
      (order) => picks(filter, value, order) && !ids.has(String(order.id)),
    );
    if (stray || missing) {
      failAt(
        `GET /orders?${filter}=${value} ${stray ? `lists order ${String(stray.id)}, ${filter} ${String(stray[filter])}` : `leaves out order ${String(missing?.id)}, ${filter} ${String(missing?.[filter])}`}`,
        call,
        `the caller's orders of ${filter} ${value}${value === 'live' ? ' (every open order, a partly filled one too)' : ''} alone`,
      );
    }
  }
  return `GET /orders?${filter}= ${values.join(', ')}: each lists the orders it names alone`;
}

/** Cancels each of `orders` that is still open. */
async function cancelAll(context: ScenarioContext, orders: Row[]): Promise<void> {
  for (const order of orders) {
    if (!hasFlag('order', String(order.status), 'open')) continue;
    await context.caller.call('cancelOrder', { path: { order_id: String(order.id) } });
  }
}

const covered = orderListFilterNames().map(orderListFilterRequirementId);

const ordersListed: Scenario = {
  name: 'GET /orders filtered by each of its filters',
  profile: 'orders',
  covers: covered,
  // Its order inside the spread is half filled by the caller's own sell: no other order of the
  // run may rest there meanwhile.
  exclusive: true,
  async run(context) {
    const orders = await ordersOfEachKind(context);
    try {
      for (const filter of orderListFilterNames()) {
        await context.evidence.check(orderListFilterRequirementId(filter), () =>
          checkFilter(context, filter, orders),
        );
      }
    } finally {
      // Cancelled now, not at the run's end: the half filled one rests inside the spread, where
      // the scenarios after it place their own.
      await cancelAll(context, orders);
    }
  },
};

export const ordersListedScenarios: Scenario[] = [ordersListed];
