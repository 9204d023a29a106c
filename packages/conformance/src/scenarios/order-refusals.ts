import { Decimal } from 'decimal.js';
import { type OrderRef, restingBuy } from '../engine/adapter.js';
import { expectStatus, failAt, fieldCodes } from '../engine/context.js';
import { type RecordedCall, Skip } from '../engine/outcome.js';
import { halfFilledBuy } from './order-trades.js';
import { expectUnchanged, orderState } from './orders.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { listOf, type Row } from './trades.js';
import { productOf } from './trades-at-mark.js';

const offTick = 'ORDER-REFUSED-OFF-TICK';
const offStep = 'ORDER-REFUSED-OFF-QUANTITY-STEP';
const postOnly = 'ORDER-REFUSED-POST-ONLY-CROSSING';
const idBytes = 'ORDER-REFUSED-CLIENT-ID-BYTES';
const idReused = 'ORDER-REFUSED-CLIENT-ID-REUSED';
const partlyFilled = 'ORDER-EDIT-PARTIALLY-FILLED-REFUSED';
const orderRefusals = [offTick, offStep, postOnly, idBytes, idReused, partlyFilled];

/** The caller's newest order and newest fill: what a refused call must leave as it was. */
async function newest(context: ScenarioContext): Promise<string> {
  const orders = await context.caller.call('listOrders', { query: { limit: '1' } });
  const fills = await context.caller.call('listOwnExecutions', {
    query: { product_id: (await context.market()).primary.id, limit: '1' },
  });
  return JSON.stringify([listOf(orders)[0]?.id ?? null, listOf(fills)[0]?.id ?? null]);
}

/**
 * `send` is refused with 422 naming `field`, and the caller's newest order and fill are what
 * they were: nothing was placed, nothing filled.
 */
async function expectRefused(
  context: ScenarioContext,
  field: string,
  what: string,
  send: () => Promise<RecordedCall>,
): Promise<RecordedCall> {
  const before = await newest(context);
  const call = await send();
  const named = fieldCodes(call, field);
  if (call.status !== 422 || !Array.isArray(named) || named.length === 0) {
    failAt(`${what} answered ${call.status}`, call, `422 naming ${field}`);
  }
  const after = await newest(context);
  if (after !== before) {
    failAt(
      `after ${what} was refused, the caller's newest order and fill are ${after}, ${before} before`,
      call,
      'as before: a refused call places and fills nothing',
    );
  }
  return call;
}

const orderOf = (context: ScenarioContext, body: Row) =>
  context.caller.call('createOrder', { body });

/** A price half a tick off: refused on a new order and on an edit of a live one, unchanged. */
async function checkOffTick(context: ScenarioContext): Promise<string> {
  const { primary } = await context.market();
  const tick = new Decimal(String((await productOf(context, primary.id)).tick_size ?? 0));
  if (tick.lte(0)) throw new Skip(`product ${primary.id} shows no tick_size`);
  const off = new Decimal(primary.restingBuyPrice).plus(tick.div(2)).toFixed();
  await expectRefused(context, 'price', `a limit buy at ${off}, half a tick off`, () =>
    orderOf(context, { ...restingBuy(primary, context.clientOrderId()), price: off }),
  );
  const live = await context.liveOrder({});
  const order_id = String(live.id);
  const was = await orderState(context, live);
  const edit = await expectRefused(context, 'price', `an edit of order ${order_id} to ${off}`, () =>
    context.caller.call('editOrder', { path: { order_id }, body: { price: off } }),
  );
  await expectUnchanged(context, live, was, edit);
  return `a price half a tick (${tick.div(2).toFixed()}) off refused on a new order and on an edit`;
}

/** A quantity one decimal finer than its currency's step is refused. */
async function checkOffStep(context: ScenarioContext): Promise<string> {
  const { primary } = await context.market();
  const currencies = await context.caller.call('listCurrencies');
  expectStatus(currencies, 200);
  const base = ((currencies.json as Row[] | undefined) ?? []).find(
    (currency) => currency.currency === primary.baseCurrency,
  );
  const places = Number(base?.assets_precision);
  if (!Number.isInteger(places))
    throw new Skip(`${primary.baseCurrency} shows no assets_precision`);
  const quantity = new Decimal(primary.quantity).plus(new Decimal(10).pow(-(places + 1))).toFixed();
  await expectRefused(
    context,
    'quantity',
    `a buy of ${quantity}, finer than ${places} places`,
    () => orderOf(context, { ...restingBuy(primary, context.clientOrderId()), quantity }),
  );
  return `a quantity of ${quantity} (${places + 1} places) refused`;
}

/** A post-only buy at a price that crosses the book is refused: it would take, not make. */
async function checkPostOnly(context: ScenarioContext): Promise<string> {
  const { primary } = await context.market();
  const price = primary.crossingBuyPrice;
  await expectRefused(context, 'price', `a limit_post_only buy at ${price}, across the book`, () =>
    orderOf(context, {
      ...restingBuy(primary, context.clientOrderId()),
      order_type: 'limit_post_only',
      price,
    }),
  );
  return `a post-only buy at ${price} refused, nothing filled`;
}

/** A client_order_id of 36 characters and 72 bytes is refused. */
async function checkIdBytes(context: ScenarioContext): Promise<string> {
  const { primary } = await context.market();
  const id = 'é'.repeat(36);
  await expectRefused(
    context,
    'client_order_id',
    'a client_order_id of 36 characters, 72 bytes',
    () => orderOf(context, restingBuy(primary, id)),
  );
  return 'a client_order_id of 72 bytes refused';
}

/** A client_order_id of an order placed and cancelled is refused when used again. */
async function checkIdReused(context: ScenarioContext): Promise<string> {
  const { primary } = await context.market();
  const live = await context.liveOrder({});
  const id = String(live.clientOrderId);
  const cancelled = await context.caller.call('cancelOrder', {
    path: { order_id: String(live.id) },
  });
  expectStatus(cancelled, 200);
  await expectRefused(
    context,
    'client_order_id',
    `a new order with client_order_id ${id}, of a cancelled order`,
    () => orderOf(context, restingBuy(primary, id)),
  );
  return `client_order_id ${id} of a cancelled order refused when used again`;
}

/** An edit of a partly filled order is refused naming the order, the order unchanged. */
async function checkPartlyFilled(context: ScenarioContext): Promise<string> {
  const { primary } = await context.market();
  const { ref, price } = await halfFilledBuy(context, primary);
  const order_id = String(ref.id);
  try {
    return await refusedWhilePartlyFilled(context, ref, price);
  } finally {
    // Cancelled now: it rests inside the spread, where later scenarios place their own.
    await context.caller.call('cancelOrder', { path: { order_id } });
  }
}

async function refusedWhilePartlyFilled(
  context: ScenarioContext,
  order: OrderRef,
  price: Decimal,
): Promise<string> {
  const { primary } = await context.market();
  const order_id = String(order.id);
  const was = await orderState(context, order);
  if (was.status !== 'partially_filled') {
    throw new Skip(`order ${order_id}, half filled, is ${String(was.status)}`);
  }
  const tick = String((await productOf(context, primary.id)).tick_size ?? 1);
  const edit = await expectRefused(
    context,
    'order',
    `an edit of partly filled order ${order_id}`,
    () =>
      context.caller.call('editOrder', {
        path: { order_id },
        body: { price: price.minus(tick).toFixed() },
      }),
  );
  await expectUnchanged(context, order, was, edit);
  return `an edit of partly filled order ${order_id} refused naming order`;
}

const refusals: Scenario = {
  name: 'orders refused for their price, quantity, client_order_id and post-only, and an edit of a partly filled one',
  profile: 'orders',
  covers: orderRefusals,
  // It reads the caller's newest order and fill: none but its own may be made meanwhile.
  exclusive: true,
  async run(context) {
    const checks = [
      [offTick, checkOffTick],
      [offStep, checkOffStep],
      [postOnly, checkPostOnly],
      [idBytes, checkIdBytes],
      [idReused, checkIdReused],
      [partlyFilled, checkPartlyFilled],
    ] as const;
    for (const [id, check] of checks) await context.evidence.check(id, () => check(context));
  },
};

export const orderRefusalScenarios: Scenario[] = [refusals];
