import type { OrderRef } from '../engine/adapter.js';
import { bodyOf, expectStatus, failAt, sameDecimal } from '../engine/context.js';
import { Failure, type RecordedCall, Skip } from '../engine/outcome.js';
import { filledOrder, filledOrderOrSkip } from './orders.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;

export const seenOnce = 'FILL-SEEN-BY-EACH-SIDE';
const wholeSeconds = 'FILL-SINCE-WHOLE-SECONDS';
const inDetails = 'FILL-IN-ORDER-DETAILS';

// Enough for the fills a scenario makes to be on the first page while others trade too.
const pageSize = '200';

/** The rows of a paged answer, or of a plain array. */
function rowsOf(call: RecordedCall): Row[] {
  expectStatus(call, 200);
  const rows = Array.isArray(call.json) ? call.json : bodyOf(call).models;
  if (!Array.isArray(rows)) {
    throw new Failure(`${call.operationId} answered no list of fills`, { call });
  }
  return rows as Row[];
}

/** The caller's fills of `productId` as `executions/me` lists them with details, newest first. */
export async function ownFillsOfProduct(context: ScenarioContext, productId: string) {
  const own = await context.caller.call('listOwnExecutions', {
    query: { product_id: productId, with_details: '1', limit: pageSize },
  });
  return { own, rows: rowsOf(own) };
}

/** The fills of `order` among the caller's own (`executions/me`), failing the check on none. */
export async function ownFillsOf(context: ScenarioContext, order: OrderRef) {
  const { own, rows } = await ownFillsOfProduct(context, order.productId);
  const mine = rows.filter((row) => String(row.order_id) === String(order.id));
  if (mine.length === 0) {
    const unnamed = rows.filter((row) => row.order_id === undefined || row.order_id === null);
    failAt(
      unnamed.length > 0
        ? `no fill of order ${order.id} in executions/me: ${unnamed.length} of its ${rows.length} rows with_details=1 carry no order_id`
        : `no fill of order ${order.id} in executions/me`,
      own,
      'its fills, each with order_id',
    );
  }
  return { own, mine };
}

export async function checkSeenOnce(context: ScenarioContext, order: OrderRef): Promise<string> {
  const { own, mine } = await ownFillsOf(context, order);
  const ids = new Set(mine.map((row) => String(row.id)));
  if (ids.size !== mine.length)
    failAt(`a fill of order ${order.id} is twice in executions/me`, own, 'once');
  for (const row of mine) {
    if (row.my_side !== order.side || row.client_order_id !== order.clientOrderId) {
      failAt(
        `fill ${String(row.id)} of order ${order.id}: my_side ${String(row.my_side)}, client_order_id ${String(row.client_order_id)}`,
        own,
        `my_side ${order.side}, client_order_id ${order.clientOrderId}`,
      );
    }
  }
  const everyone = await context.caller.call('listExecutions', {
    query: { product_id: order.productId, limit: pageSize },
  });
  const fills = rowsOf(everyone);
  for (const row of mine) {
    const same = fills.filter((fill) => String(fill.id) === String(row.id));
    if (same.length !== 1) {
      failAt(
        `fill ${String(row.id)} is ${same.length} times in the public executions`,
        everyone,
        'once',
      );
    }
    const [fill] = same as [Row];
    // Decimals are compared as numbers: "9500001.0" and "9500001" are one price.
    const differing = (['price', 'quantity', 'taker_side', 'created_at'] as const).filter(
      (field) =>
        field === 'price' || field === 'quantity'
          ? !sameDecimal(fill[field], row[field])
          : String(fill[field]) !== String(row[field]),
    );
    if (differing.length > 0) {
      failAt(
        `fill ${String(row.id)} differs between the public and the own executions in ${differing.join(', ')}`,
        everyone,
        `the same fill: ${differing.map((field) => `${field} ${String(row[field])}`).join(', ')}, as executions/me lists it`,
      );
    }
  }
  return `${mine.length} fill(s) of order ${order.id}, once in each list`;
}

async function checkInDetails(context: ScenarioContext, order: OrderRef): Promise<string> {
  const { mine } = await ownFillsOf(context, order);
  const read = await context.caller.call('getOrder', {
    path: { order_id: String(order.id) },
    query: { with_details: '1' },
  });
  expectStatus(read, 200);
  const executions = bodyOf(read).executions;
  const listed = Array.isArray(executions) ? (executions as Row[]) : [];
  const expected = mine.map((row) => String(row.id)).reverse();
  const sides = listed.every((fill) => fill.my_side === order.side);
  if (listed.map((fill) => String(fill.id)).join() !== expected.join() || !sides) {
    failAt(
      `order ${order.id} with details lists fills [${listed.map((fill) => String(fill.id))}]`,
      read,
      `its fills [${expected}], oldest first, my_side ${order.side}`,
    );
  }
  return `order ${order.id} lists its ${expected.length} fill(s)`;
}

/**
 * Filled orders until two fills share a second (the first pair almost always does; a few
 * more cover one that straddles a second), then the timestamp form asked for one fill.
 */
async function checkWholeSeconds(context: ScenarioContext, first: OrderRef): Promise<string> {
  const productId = first.productId;
  let second: number | undefined;
  let page: Row[] = [];
  for (let tries = 0; tries < 5 && second === undefined; tries++) {
    if (tries > 0) await filledOrder(context);
    const read = await context.caller.call('listExecutions', {
      query: { product_id: productId, limit: pageSize },
    });
    page = rowsOf(read);
    const [newest, next] = page;
    if (newest && next && newest.created_at === next.created_at) second = Number(newest.created_at);
  }
  if (second === undefined) throw new Skip('no two fills were made in one second');
  const since = await context.caller.call('listExecutions', {
    query: { product_id: productId, timestamp: String(second), limit: '1' },
  });
  const answered = rowsOf(since).map((row) => String(row.id));
  const ofThatSecond = page
    .filter((row) => Number(row.created_at) === second)
    .map((row) => String(row.id))
    .reverse();
  const missing = ofThatSecond.filter((id) => !answered.includes(id));
  if (missing.length > 0 || answered.slice(0, ofThatSecond.length).join() !== ofThatSecond.join()) {
    failAt(
      `from second ${second} with limit 1: ${answered.length} fill(s), ${missing.length} of that second missing`,
      since,
      `the ${ofThatSecond.length} fills of that second, oldest first`,
    );
  }
  return `${ofThatSecond.length} fills of one second in one answer with limit 1`;
}

const fills: Scenario = {
  name: 'a fill read back in the public and the own executions',
  profile: 'orders',
  covers: [seenOnce, inDetails, wholeSeconds],
  async run(context) {
    const order = await filledOrderOrSkip(context, [seenOnce, inDetails, wholeSeconds]);
    if (!order) return;
    await context.evidence.check(seenOnce, () => checkSeenOnce(context, order));
    await context.evidence.check(inDetails, () => checkInDetails(context, order));
    await context.evidence.check(wholeSeconds, () => checkWholeSeconds(context, order));
  },
};

export const executionScenarios: Scenario[] = [fills];
