import { operationTable } from '@exchange-kit/contract/exchange';
import type { RequirementId } from '@exchange-kit/contract/state-tables';
import { Decimal } from 'decimal.js';
import type { OrderRef } from '../engine/adapter.js';
import { cancelAllFilterNames, cancelAllFilterRequirementId } from '../engine/catalog.js';
import { bodyOf, expectStatus } from '../engine/context.js';
import { Failure, type RecordedCall, SetupError, Skip } from '../engine/outcome.js';
import { expected } from './expected.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;
type Via = 'id' | 'client';

const sameDecimal = (a: unknown, b: unknown) =>
  a !== null &&
  a !== undefined &&
  b !== null &&
  b !== undefined &&
  new Decimal(String(a)).eq(String(b));

/** Path parameters naming `order` by its system id or by its client order id. */
function pathOf(order: OrderRef, via: Via): Record<string, string> {
  if (via === 'client') {
    if (!order.clientOrderId) throw new Skip('the fixture order has no client order id');
    return { client_order_id: order.clientOrderId };
  }
  return { order_id: String(order.id) };
}

const byClient = (operationId: string, via: Via) =>
  via === 'client' ? `${operationId}ByClientId` : operationId;

/** Every successful call is evidence for the status table's row of successes. */
function noteSuccess(context: ScenarioContext, call: RecordedCall): void {
  context.evidence.noteStatus('STATUS-200-SUCCESS', call, expected('STATUS-200-SUCCESS').status);
}

async function readOrder(
  context: ScenarioContext,
  order: OrderRef,
  via: Via = 'id',
): Promise<Row | undefined> {
  const read = await context.caller.call(byClient('getOrder', via), { path: pathOf(order, via) });
  if (read.status === 404) return undefined;
  if (read.status !== operationTable.getOrder.status) {
    throw new SetupError(`reading order ${order.id} back answered ${read.status}`, read);
  }
  return bodyOf(read);
}

async function liveIds(context: ScenarioContext): Promise<Set<string>> {
  const listed = await context.caller.call('listOrders', {
    query: { status: 'live', limit: '1000' },
  });
  if (listed.status !== operationTable.listOrders.status)
    throw new SetupError(`listing live orders answered ${listed.status}`, listed);
  return new Set(
    ((bodyOf(listed).models as Row[] | undefined) ?? []).map((order) => String(order.id)),
  );
}

function expectField(
  call: RecordedCall | undefined,
  body: Row | undefined,
  field: string,
  expected: unknown,
  what: string,
): void {
  const value = body?.[field];
  const ok =
    typeof expected === 'string' && /^-?[0-9.]+$/.test(expected)
      ? sameDecimal(value, expected)
      : value === expected;
  if (ok) return;
  throw new Failure(
    `${what}: ${field} is ${JSON.stringify(value)}, not ${JSON.stringify(expected)}`,
    {
      received: `${field}: ${JSON.stringify(value)}`,
      documented: `${field}: ${JSON.stringify(expected)}`,
      call,
    },
  );
}

const cancelLive: Scenario = {
  name: 'cancel a live order, by id and by client order id',
  profile: 'orders',
  covers: ['ORDER-CANCEL-LIVE', 'STATUS-200-SUCCESS'],
  async run(context) {
    const { status, next } = expected('ORDER-CANCEL-LIVE');
    for (const via of ['id', 'client'] as const) {
      const order = await context.liveOrder({});
      const cancelled = await context.caller.call(byClient('cancelOrder', via), {
        path: pathOf(order, via),
      });
      noteSuccess(context, cancelled);
      await context.evidence.check('ORDER-CANCEL-LIVE', async () => {
        expectStatus(cancelled, status, `status ${status} and the order with status ${next}`);
        expectField(cancelled, bodyOf(cancelled), 'status', next, 'the cancel response');
        const read = await readOrder(context, order);
        if (read && read.status !== next) {
          throw new Failure(
            `order ${order.id} is ${String(read.status)} after its cancel answered ${cancelled.status}`,
            {
              received: `GET /orders/${order.id}: status ${String(read.status)}`,
              documented: `next state ${next}`,
              call: cancelled,
            },
          );
        }
        if ((await liveIds(context)).has(String(order.id))) {
          throw new Failure(
            `order ${order.id} is still listed among the live orders after its cancel`,
            {
              received: 'listed by GET /orders?status=live',
              documented: `next state ${next}`,
              call: cancelled,
            },
          );
        }
        return `cancelled by ${via === 'id' ? 'system id' : 'client order id'}, read back as ${String(read?.status ?? 'gone')}`;
      });
    }
  },
};

const notLiveRequirements = {
  editOrder: 'ORDER-EDIT-NOT-LIVE',
  updateOrderTpsl: 'ORDER-UPDATE-TPSL-NOT-LIVE',
  cancelOrder: 'ORDER-CANCEL-NOT-LIVE',
} as const satisfies Record<string, RequirementId>;

/** Edit, update_tpsl and cancel of an order that is not live: each answered as its row says. */
async function checkNotLive(
  context: ScenarioContext,
  order: OrderRef,
  state: string,
): Promise<void> {
  const market = await context.market();
  const before = await readOrder(context, order);
  const bodies: Record<string, unknown> = {
    editOrder: { price: market.primary.restingBuyPrice },
    updateOrderTpsl: { take_profit: market.primary.restingSellPrice },
    cancelOrder: undefined,
  };
  for (const [operationId, requirementId] of Object.entries(notLiveRequirements)) {
    for (const via of ['id', 'client'] as const) {
      if (via === 'client' && !order.clientOrderId) continue;
      const answered = await context.caller.call(byClient(operationId, via), {
        path: pathOf(order, via),
        body: bodies[operationId],
      });
      context.evidence.noteStatus(
        'STATUS-404-NOT-LIVE',
        answered,
        expected('STATUS-404-NOT-LIVE').status,
      );
      const { status } = expected(requirementId);
      await context.evidence.check(requirementId, async () => {
        expectStatus(answered, status, `${status} for a ${state} order`);
        return `${answered.operationId} of a ${state} order answered ${status}`;
      });
    }
  }
  const after = await readOrder(context, order);
  for (const requirementId of Object.values(notLiveRequirements)) {
    const { next } = expected(requirementId);
    if (next !== 'unchanged') {
      throw new Error(`${requirementId} no longer expects the order unchanged: revise this check`);
    }
    await context.evidence.check(requirementId, async () => {
      for (const field of ['status', 'price', 'quantity', 'take_profit', 'stop_loss']) {
        if (JSON.stringify(before?.[field]) !== JSON.stringify(after?.[field])) {
          throw new Failure(
            `the ${state} order changed: ${field} was ${JSON.stringify(before?.[field])}, is ${JSON.stringify(after?.[field])}`,
            {
              received: `${field}: ${JSON.stringify(after?.[field])}`,
              documented: `next state ${next}`,
            },
          );
        }
      }
      return `the ${state} order read back unchanged`;
    });
  }
}

const notLive: Scenario = {
  name: 'edit, update_tpsl and cancel of cancelled and filled orders',
  profile: 'orders',
  covers: [...Object.values(notLiveRequirements), 'STATUS-404-NOT-LIVE'],
  async run(context) {
    const order = await context.liveOrder({});
    const cancelled = await context.caller.call('cancelOrder', {
      path: { order_id: String(order.id) },
    });
    if (cancelled.status !== expected('ORDER-CANCEL-LIVE').status)
      throw new SetupError(`cancelling the fixture answered ${cancelled.status}`, cancelled);
    await checkNotLive(context, order, 'cancelled');
    let filled: OrderRef;
    try {
      filled = await filledOrder(context);
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      for (const id of Object.values(notLiveRequirements)) {
        context.evidence.record({
          requirementId: id,
          outcome: 'skip',
          message: `filled orders not checked: ${error.message}`,
        });
      }
      return;
    }
    await checkNotLive(context, filled, 'filled');
  },
};

/** One change sent to a live order: the fields it sets, naming the order by `via`. */
interface LiveOrderChange {
  via: Via;
  body: Row;
  /** What the verdict says was done, e.g. `price edited`. */
  done: string;
}

interface LiveOrderChangeCheck {
  operationId: 'editOrder' | 'updateOrderTpsl';
  requirementId: RequirementId;
  /** How failures name the response, e.g. `the edit response`. */
  response: string;
  /** Which id reads the order back; by default the one the change named it by. */
  readBackVia?: Via;
  /** What else the response must hold besides the changed fields. */
  checkResponse?: (call: RecordedCall, body: Row) => void;
}

function expectStateWith(
  call: RecordedCall,
  body: Row | undefined,
  state: string | undefined,
  fields: Row,
  what: string,
) {
  expectField(call, body, 'status', state, what);
  for (const [field, value] of Object.entries(fields)) expectField(call, body, field, value, what);
}

function expectMarginFields(call: RecordedCall, body: Row): void {
  for (const field of ['margin_used', 'margin_interest', 'unwound_trade_leverage_level']) {
    if (!(field in body)) {
      throw new Failure(`the update_tpsl response lacks ${field}`, {
        received: `fields: ${Object.keys(body).join(', ')}`,
        documented:
          'updated order returned with margin_used, margin_interest and unwound_trade_leverage_level',
        call,
      });
    }
  }
}

/** Each change answers as the row says, the order in the row's next state and changed, and reads back the same. */
async function checkLiveOrderChanges(
  context: ScenarioContext,
  order: OrderRef,
  check: LiveOrderChangeCheck,
  changes: LiveOrderChange[],
): Promise<void> {
  const { status, next } = expected(check.requirementId);
  for (const change of changes) {
    const changed = await context.caller.call(byClient(check.operationId, change.via), {
      path: pathOf(order, change.via),
      body: change.body,
    });
    noteSuccess(context, changed);
    await context.evidence.check(check.requirementId, async () => {
      expectStatus(changed, status, `status ${status} and the updated order`);
      const body = bodyOf(changed);
      expectStateWith(changed, body, next, change.body, check.response);
      check.checkResponse?.(changed, body);
      const read = await readOrder(context, order, check.readBackVia ?? change.via);
      expectStateWith(changed, read, next, change.body, `order ${order.id} read back`);
      return `${change.done} by ${change.via === 'id' ? 'system id' : 'client order id'} and read back`;
    });
  }
}

const editLive: Scenario = {
  name: 'edit a live order, by id and by client order id',
  profile: 'orders',
  covers: ['ORDER-EDIT-LIVE', 'STATUS-200-SUCCESS'],
  async run(context) {
    const market = await context.market();
    const order = await context.liveOrder({});
    const price = new Decimal(market.primary.restingBuyPrice)
      .mul(0.9)
      .toDecimalPlaces(0, Decimal.ROUND_DOWN)
      .toFixed();
    const quantity = new Decimal(market.primary.quantity).mul(2).toFixed();
    await checkLiveOrderChanges(
      context,
      order,
      { operationId: 'editOrder', requirementId: 'ORDER-EDIT-LIVE', response: 'the edit response' },
      [
        { via: 'id', body: { price }, done: 'price edited' },
        { via: 'client', body: { quantity }, done: 'quantity edited' },
      ],
    );
  },
};

const tpslLive: Scenario = {
  name: 'update take profit and stop loss of a live order',
  profile: 'orders',
  covers: ['ORDER-UPDATE-TPSL-LIVE', 'STATUS-200-SUCCESS'],
  async run(context) {
    const market = await context.market();
    const order = await context.liveOrder({
      tradingType: market.primary.marginEnabled ? 'margin' : 'spot',
    });
    const takeProfit = market.primary.restingSellPrice;
    const stopLoss = new Decimal(market.primary.restingBuyPrice)
      .div(2)
      .toDecimalPlaces(0, Decimal.ROUND_DOWN)
      .toFixed();
    const done = 'take profit / stop loss updated';
    await checkLiveOrderChanges(
      context,
      order,
      {
        operationId: 'updateOrderTpsl',
        requirementId: 'ORDER-UPDATE-TPSL-LIVE',
        response: 'the update_tpsl response',
        readBackVia: 'id',
        checkResponse: expectMarginFields,
      },
      [
        { via: 'id', body: { take_profit: takeProfit, stop_loss: stopLoss }, done },
        { via: 'client', body: { stop_loss: new Decimal(stopLoss).add(1).toFixed() }, done },
      ],
    );
  },
};

// Which attribute of a fixture order each cancel_all filter of the spec compares.
const filterAttribute: Record<string, keyof OrderRef> = {
  product_id: 'productId',
  trading_type: 'tradingType',
  side: 'side',
};

interface BookSlot {
  key: string;
  product: 'primary' | 'secondary';
  side: 'buy' | 'sell';
  tradingType: 'spot' | 'margin';
}

/**
 * One cancel_all round against a book of both matching and non-matching orders: the
 * matching ones must be cancelled and listed, exactly; the others must stay live.
 */
async function cancelAllRound(
  context: ScenarioContext,
  book: Map<string, OrderRef>,
  requirementId: string,
  row: RequirementId,
  filters: Record<string, string> | undefined,
  label: string,
): Promise<void> {
  const { status } = expected(row);
  const matches = (order: OrderRef) =>
    Object.entries(filters ?? {}).every(([name, value]) => {
      const attribute = filterAttribute[name];
      return attribute !== undefined && String(order[attribute]) === value;
    });
  const ours = [...book.values()];
  const matching = ours.filter(matches);
  const others = ours.filter((order) => !matches(order));
  if (filters && Object.keys(filters).length > 0 && others.length === 0) {
    context.evidence.record({
      requirementId,
      outcome: 'skip',
      message: `${label}: no fixture order differs in this filter, so leaving others live cannot be shown`,
    });
    return;
  }
  const answered = await context.caller.call(
    'cancelAllOrders',
    filters === undefined ? {} : { body: filters },
  );
  noteSuccess(context, answered);
  const documented = `models lists exactly the matching orders (${matching.map((order) => order.id).join(', ') || 'none'}); the others stay live`;
  await context.evidence.check(requirementId, async () => {
    expectStatus(answered, status, `status ${status} and {models}`);
    const models = bodyOf(answered).models;
    if (!Array.isArray(models))
      throw new Failure('the cancel_all response has no models array', {
        received: answered.responseText.slice(0, 300),
        documented,
        call: answered,
      });
    const listed = new Map((models as Row[]).map((entry) => [String(entry.id), entry]));
    const missing = matching.filter((order) => !listed.has(String(order.id)));
    const extra = others.filter((order) => listed.has(String(order.id)));
    const wrongClientId = matching.filter(
      (order) =>
        listed.has(String(order.id)) &&
        listed.get(String(order.id))?.client_order_id !== order.clientOrderId,
    );
    const live = await liveIds(context);
    const stillLive = matching.filter((order) => live.has(String(order.id)));
    const gone = others.filter((order) => !live.has(String(order.id)));
    const problems = [
      missing.length > 0 &&
        `matching orders not listed in models: ${missing.map((o) => o.id).join(', ')}`,
      extra.length > 0 &&
        `non-matching orders listed in models: ${extra.map((o) => o.id).join(', ')}`,
      wrongClientId.length > 0 &&
        `client_order_id wrong in models for ${wrongClientId.map((o) => o.id).join(', ')}`,
      stillLive.length > 0 &&
        `matching orders still live when read back: ${stillLive.map((o) => o.id).join(', ')}`,
      gone.length > 0 &&
        `non-matching orders no longer live when read back: ${gone.map((o) => o.id).join(', ')}`,
    ].filter(Boolean);
    if (problems.length > 0) {
      throw new Failure(`${label}: ${problems.join('; ')}`, {
        received: `models: ${[...listed.keys()].join(', ') || 'none'}; live afterwards: ${
          ours
            .filter((o) => live.has(String(o.id)))
            .map((o) => o.id)
            .join(', ') || 'none'
        }`,
        documented,
        call: answered,
      });
    }
    return `${label}: ${matching.length} cancelled and listed, ${others.length} left live`;
  });
  // The book follows what the server did, so one broken round does not spill into the next.
  const live = await liveIds(context);
  for (const order of ours) {
    if (!live.has(String(order.id)))
      book.delete(`${order.productId}/${order.side}/${order.tradingType}`);
  }
}

const cancelAll: Scenario = {
  name: 'cancel_all with each filter, all combined, and none',
  profile: 'orders',
  exclusive: true,
  covers: [
    ...cancelAllFilterNames().map(cancelAllFilterRequirementId),
    'ORDER-CANCEL-ALL-MATCHING',
    'ORDER-CANCEL-ALL-NO-FILTER',
    'STATUS-200-SUCCESS',
  ],
  async run(context) {
    const market = await context.market();
    const slots: BookSlot[] = [];
    for (const product of ['primary', 'secondary'] as const) {
      const info = market[product];
      if (!info) continue;
      for (const side of ['buy', 'sell'] as const)
        slots.push({ key: '', product, side, tradingType: 'spot' });
      if (info.marginEnabled) slots.push({ key: '', product, side: 'buy', tradingType: 'margin' });
    }
    const book = new Map<string, OrderRef>();
    const fill = async () => {
      for (const slot of slots) {
        const product = market[slot.product];
        if (!product) continue;
        const key = `${product.id}/${slot.side}/${slot.tradingType}`;
        if (!book.has(key))
          book.set(
            key,
            await context.liveOrder({ product, side: slot.side, tradingType: slot.tradingType }),
          );
      }
    };
    // Every filter takes the value of the primary product's spot buy: the book holds, for each
    // filter, an order that matches all the others but not it, so each filter is shown to matter.
    const reference: Pick<OrderRef, 'productId' | 'side' | 'tradingType'> = {
      productId: market.primary.id,
      side: 'buy',
      tradingType: 'spot',
    };
    for (const filter of cancelAllFilterNames()) {
      await fill();
      const attribute = filterAttribute[filter];
      const requirementId = cancelAllFilterRequirementId(filter);
      if (!attribute) {
        context.evidence.record({
          requirementId,
          outcome: 'skip',
          message: `no fixture attribute is known for the filter ${filter}`,
        });
        continue;
      }
      await cancelAllRound(
        context,
        book,
        requirementId,
        'ORDER-CANCEL-ALL-MATCHING',
        { [filter]: String(reference[attribute as keyof typeof reference]) },
        `cancel_all {${filter}}`,
      );
    }
    await fill();
    const combined: Record<string, string> = {};
    for (const filter of cancelAllFilterNames()) {
      const attribute = filterAttribute[filter];
      if (attribute) combined[filter] = String(reference[attribute as keyof typeof reference]);
    }
    await cancelAllRound(
      context,
      book,
      'ORDER-CANCEL-ALL-MATCHING',
      'ORDER-CANCEL-ALL-MATCHING',
      combined,
      'cancel_all with every filter',
    );
    await fill();
    await cancelAllRound(
      context,
      book,
      'ORDER-CANCEL-ALL-NO-FILTER',
      'ORDER-CANCEL-ALL-NO-FILTER',
      {},
      'cancel_all with an empty body',
    );
    await fill();
    await cancelAllRound(
      context,
      book,
      'ORDER-CANCEL-ALL-NO-FILTER',
      'ORDER-CANCEL-ALL-NO-FILTER',
      undefined,
      'cancel_all with no body',
    );
  },
};

const skipsConditional: Scenario = {
  name: 'cancel_all leaves conditional orders',
  profile: 'orders',
  exclusive: true,
  covers: ['ORDER-CANCEL-ALL-SKIPS-CONDITIONAL'],
  async run(context) {
    const market = await context.market();
    const conditional = await context.adapter.placeConditionalOrders(
      context.adapterContext,
      {
        product: market.primary,
        side: 'buy',
        tradingType: 'margin',
        clientOrderId: context.clientOrderId(),
      },
      market,
    );
    context.created.push(...conditional);
    const answered = await context.caller.call('cancelAllOrders', {});
    const { status, next } = expected('ORDER-CANCEL-ALL-SKIPS-CONDITIONAL');
    await context.evidence.check('ORDER-CANCEL-ALL-SKIPS-CONDITIONAL', async () => {
      expectStatus(answered, status, `status ${status} and {models}`);
      const listed = new Set(
        ((bodyOf(answered).models as Row[] | undefined) ?? []).map((entry) => String(entry.id)),
      );
      const wronglyListed = conditional.filter((order) => listed.has(String(order.id)));
      const live = await liveIds(context);
      const cancelled = conditional.filter((order) => !live.has(String(order.id)));
      if (wronglyListed.length > 0 || cancelled.length > 0) {
        throw new Failure(
          `cancel_all touched conditional orders: listed ${wronglyListed.map((o) => o.id).join(', ') || 'none'}, no longer live ${cancelled.map((o) => o.id).join(', ') || 'none'}`,
          {
            received: `models: ${[...listed].join(', ') || 'none'}`,
            documented: `conditional orders stay ${next} and are not listed in models`,
            call: answered,
          },
        );
      }
      return `${conditional.length} conditional orders stayed live and unlisted`;
    });
  },
};

export const orderScenarios: Scenario[] = [
  cancelLive,
  notLive,
  editLive,
  tpslLive,
  cancelAll,
  skipsConditional,
];

/** A spot buy of the primary product, filled through the adapter, with a client order id of the run. */
export async function filledOrder(context: ScenarioContext): Promise<OrderRef> {
  const market = await context.market();
  return context.adapter.placeFilledOrder(
    context.adapterContext,
    {
      product: market.primary,
      side: 'buy',
      tradingType: 'spot',
      clientOrderId: context.clientOrderId(),
    },
    market,
  );
}

/** The order as GET /orders/{order_id} reads it now. */
export async function orderState(
  context: ScenarioContext,
  order: OrderRef,
): Promise<Record<string, unknown>> {
  const read = await context.caller.call('getOrder', { path: { order_id: String(order.id) } });
  if (read.status !== 200)
    throw new SetupError(`reading order ${order.id} back answered ${read.status}`, read);
  return bodyOf(read);
}

/**
 * The order reads back with the status, price and quantity it had before: the refused call
 * `attack` changed nothing.
 */
export async function expectUnchanged(
  context: ScenarioContext,
  order: OrderRef,
  before: Record<string, unknown>,
  attack: RecordedCall,
): Promise<void> {
  const after = await orderState(context, order);
  for (const field of ['status', 'price', 'quantity']) {
    if (JSON.stringify(after[field]) !== JSON.stringify(before[field])) {
      throw new Failure(
        `order ${order.id} changed after a refused call: ${field} ${JSON.stringify(before[field])} → ${JSON.stringify(after[field])}`,
        {
          received: `${field}: ${JSON.stringify(after[field])}`,
          documented: 'the state is unchanged',
          call: attack,
        },
      );
    }
  }
}

/**
 * `filledOrder`, or undefined with each of `covers` recorded as skipped when the server gives
 * no filled order (a Skip); any other failure goes on to the scenario.
 */
export async function filledOrderOrSkip(
  context: ScenarioContext,
  covers: readonly RequirementId[],
): Promise<OrderRef | undefined> {
  try {
    return await filledOrder(context);
  } catch (error) {
    if (!(error instanceof Skip)) throw error;
    for (const requirementId of covers) {
      context.evidence.record({
        requirementId,
        outcome: 'skip',
        message: `no filled order: ${error.message}`,
      });
    }
    return undefined;
  }
}
