import { hasFlag, type RequirementId } from '@exchange-kit/contract/state-tables';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import type { Market, OrderRef } from '../engine/adapter.js';
import { bodyOf } from '../engine/context.js';
import { Failure, type RecordedCall } from '../engine/outcome.js';
import { expected } from './expected.js';
import { checkModel } from './model-check.js';
import type { Scenario, ScenarioContext } from './scenario.js';

export const modelRequirementId = 'MODEL-ORDER-SEQUENCES';

/** What the suite believes of one order it placed: the state tables move it, step by step. */
interface ModelOrder {
  ref: OrderRef;
  state: string;
  quantity: string;
}

interface Model {
  orders: ModelOrder[];
}

/** The server, as the commands reach it: the run's context and the calls of this sequence. */
interface Real {
  context: ScenarioContext;
  market: Market;
  calls: RecordedCall[];
}

// Shrinking re-runs whole sequences; past this many the smallest found so far is reported.
const maxCommands = 8;

const pathOf = (order: OrderRef, via: 'id' | 'client'): Record<string, string> =>
  via === 'client' && order.clientOrderId !== null
    ? { client_order_id: order.clientOrderId }
    : { order_id: String(order.id) };

const isOpen = (state: string) => hasFlag('order', state, 'open');

async function send(
  real: Real,
  operationId: string,
  options: Parameters<ScenarioContext['caller']['call']>[1],
): Promise<RecordedCall> {
  const call = await real.context.caller.call(operationId, options);
  real.calls.push(call);
  return call;
}

/** Fails the step unless the call got the status the state-table row gives. */
function expectRow(call: RecordedCall, row: RequirementId, what: string): void {
  const { status } = expected(row);
  if (call.status === status) return;
  throw new Failure(`${what}: answered ${call.status}, where ${row} gives ${status}`, {
    received: `${call.status} ${call.responseText.slice(0, 200)}`,
    documented: `${row}: status ${status}`,
    call,
  });
}

/** Reads an order back and fails unless the server holds what the model does. */
async function readBack(real: Real, order: ModelOrder, after: string): Promise<void> {
  const read = await send(real, 'getOrder', { path: { order_id: String(order.ref.id) } });
  if (read.status !== 200) {
    throw new Failure(`after ${after}, order ${order.ref.id} reads back ${read.status}`, {
      received: `${read.status} ${read.responseText.slice(0, 200)}`,
      documented: `the order, ${order.state}`,
      call: read,
    });
  }
  const body = bodyOf(read);
  const quantityHeld =
    !isOpen(order.state) ||
    new Decimal(String(body.quantity ?? 'NaN')).equals(new Decimal(order.quantity));
  if (body.status !== order.state || !quantityHeld) {
    throw new Failure(
      `after ${after}, order ${order.ref.id} is ${String(body.status)} with quantity ${String(body.quantity)}; the state tables give ${order.state}${isOpen(order.state) ? ` with quantity ${order.quantity}` : ''}`,
      {
        received: read.responseText.slice(0, 300),
        documented: `status ${order.state}`,
        call: read,
      },
    );
  }
}

class Place implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly product: 'primary' | 'secondary',
    readonly side: 'buy' | 'sell',
    readonly tradingType: 'spot' | 'margin',
  ) {}
  check = (model: Readonly<Model>) => model.orders.length < 4;
  async run(model: Model, real: Real) {
    const product = real.market[this.product] ?? real.market.primary;
    const tradingType = this.tradingType === 'margin' && product.marginEnabled ? 'margin' : 'spot';
    const before = real.context.caller.calls.length;
    const ref = await real.context.liveOrder({ product, side: this.side, tradingType });
    real.calls.push(...real.context.caller.calls.slice(before));
    const order: ModelOrder = { ref, state: 'live', quantity: product.quantity };
    model.orders.push(order);
    await readBack(real, order, this.toString());
  }
  toString = () =>
    `place(${this.product}, ${this.side}${this.tradingType === 'margin' ? ', margin where the product allows' : ''})`;
}

/** A step on one order the model holds, the `pick`-th modulo their number. */
abstract class OnOrder implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly via: 'id' | 'client',
  ) {}
  check = (model: Readonly<Model>) => model.orders.length > 0;
  protected target(model: Model): ModelOrder {
    return model.orders[this.pick % model.orders.length] as ModelOrder;
  }
  abstract run(model: Model, real: Real): Promise<void>;
  abstract toString(): string;
}

class Edit extends OnOrder {
  async run(model: Model, real: Real) {
    const order = this.target(model);
    const quantity = new Decimal(order.quantity).add(real.market.primary.quantity).toFixed();
    const call = await send(real, this.via === 'id' ? 'editOrder' : 'editOrderByClientId', {
      path: pathOf(order.ref, this.via),
      body: { quantity },
    });
    if (isOpen(order.state)) {
      expectRow(call, 'ORDER-EDIT-LIVE', this.toString());
      order.quantity = quantity;
    } else {
      expectRow(call, 'ORDER-EDIT-NOT-LIVE', this.toString());
    }
    await readBack(real, order, this.toString());
  }
  toString = () => `edit(#${this.pick}, by ${this.via}, quantity)`;
}

class UpdateTpsl extends OnOrder {
  override check = (model: Readonly<Model>) =>
    model.orders.some((o) => o.ref.tradingType === 'margin');
  protected override target(model: Model): ModelOrder {
    const margin = model.orders.filter((o) => o.ref.tradingType === 'margin');
    return margin[this.pick % margin.length] as ModelOrder;
  }
  async run(model: Model, real: Real) {
    const order = this.target(model);
    const call = await send(
      real,
      this.via === 'id' ? 'updateOrderTpsl' : 'updateOrderTpslByClientId',
      {
        path: pathOf(order.ref, this.via),
        body: { take_profit: real.market.primary.restingSellPrice },
      },
    );
    expectRow(
      call,
      isOpen(order.state) ? 'ORDER-UPDATE-TPSL-LIVE' : 'ORDER-UPDATE-TPSL-NOT-LIVE',
      this.toString(),
    );
    await readBack(real, order, this.toString());
  }
  toString = () => `update_tpsl(#${this.pick} of the margin orders, by ${this.via})`;
}

class Cancel extends OnOrder {
  async run(model: Model, real: Real) {
    const order = this.target(model);
    const call = await send(real, this.via === 'id' ? 'cancelOrder' : 'cancelOrderByClientId', {
      path: pathOf(order.ref, this.via),
    });
    if (isOpen(order.state)) {
      expectRow(call, 'ORDER-CANCEL-LIVE', this.toString());
      order.state = expected('ORDER-CANCEL-LIVE').next ?? order.state;
    } else {
      expectRow(call, 'ORDER-CANCEL-NOT-LIVE', this.toString());
    }
    await readBack(real, order, this.toString());
  }
  toString = () => `cancel(#${this.pick}, by ${this.via})`;
}

class CancelAll implements fc.AsyncCommand<Model, Real> {
  constructor(readonly filter: 'none' | 'side' | 'trading_type' | 'product_id') {}
  check = () => true;
  async run(model: Model, real: Real) {
    const sample = model.orders[0]?.ref;
    const filters: Record<string, string> =
      this.filter === 'none' || !sample
        ? {}
        : {
            [this.filter]: String(
              this.filter === 'side'
                ? sample.side
                : this.filter === 'trading_type'
                  ? sample.tradingType
                  : sample.productId,
            ),
          };
    const call = await send(real, 'cancelAllOrders', { body: filters });
    expectRow(call, 'ORDER-CANCEL-ALL-MATCHING', this.toString());
    const listed = new Set(
      ((bodyOf(call).models as Record<string, unknown>[] | undefined) ?? []).map((m) =>
        String(m.id),
      ),
    );
    const matches = (order: OrderRef) =>
      Object.entries(filters).every(
        ([name, value]) =>
          String(
            name === 'side'
              ? order.side
              : name === 'trading_type'
                ? order.tradingType
                : order.productId,
          ) === value,
      );
    const next = expected('ORDER-CANCEL-ALL-MATCHING').next;
    for (const order of model.orders) {
      const cancelled = isOpen(order.state) && matches(order.ref);
      if (cancelled !== listed.has(String(order.ref.id))) {
        throw new Failure(
          `${this.toString()}: order ${order.ref.id} (${order.state}, ${order.ref.side} ${order.ref.tradingType} of product ${order.ref.productId}) was ${cancelled ? 'not ' : ''}listed in models`,
          {
            received: call.responseText.slice(0, 300),
            documented: 'the live orders matching the filters, and only those',
            call,
          },
        );
      }
      if (cancelled && next) order.state = next;
    }
    for (const order of model.orders) await readBack(real, order, this.toString());
  }
  toString = () => `cancel_all(${this.filter === 'none' ? 'no filter' : `by ${this.filter}`})`;
}

const via = fc.constantFrom<'id' | 'client'>('id', 'client');
const pick = fc.nat({ max: 3 });
const place = fc
  .tuple(
    fc.constantFrom<'primary' | 'secondary'>('primary', 'secondary'),
    fc.constantFrom<'buy' | 'sell'>('buy', 'sell'),
    fc.constantFrom<'spot' | 'margin'>('spot', 'margin'),
  )
  // Margin orders are bought, so that a take profit above the market fits them.
  .map(
    ([product, side, tradingType]) =>
      new Place(product, side, side === 'buy' ? tradingType : 'spot'),
  );
const edit = fc.tuple(pick, via).map(([p, v]) => new Edit(p, v));
const cancel = fc.tuple(pick, via).map(([p, v]) => new Cancel(p, v));
const cancelAll = fc
  .constantFrom<'none' | 'side' | 'trading_type' | 'product_id'>(
    'none',
    'side',
    'trading_type',
    'product_id',
  )
  .map((filter) => new CancelAll(filter));
// Listed twice, placing, editing and cancelling come twice as often as the bulk cancel: a
// sequence then mostly has orders to act on.
const commands = [
  place,
  place,
  edit,
  edit,
  fc.tuple(pick, via).map(([p, v]) => new UpdateTpsl(p, v)),
  cancel,
  cancel,
  cancelAll,
];

const orderSequences: Scenario = {
  name: 'random sequences of order operations against a model of the state tables',
  profile: 'model',
  requires: ['orders'],
  // cancel_all without a filter cancels every live order of the account.
  exclusive: true,
  covers: [modelRequirementId],
  async run(context) {
    const market = await context.market();
    await checkModel(context, {
      requirementId: modelRequirementId,
      commands,
      maxCommands,
      longest: true,
      // Each way of acting on an edited order, on an order named either way.
      examples: (['id', 'client'] as const).flatMap((way) => [
        [new Place('primary', 'buy', 'spot'), new Edit(0, way), new Cancel(0, way)],
        [new Place('primary', 'buy', 'spot'), new Edit(0, way), new UpdateTpsl(0, way)],
      ]),
      model: () => ({ orders: [] }),
      real: (): Real => ({ context, market, calls: [] }),
      modelled: 'the state tables',
      passed: (sequences, calls) =>
        `${sequences} sequences of up to ${maxCommands} steps (${calls} calls) held to the state tables`,
    });
  },
};

export const modelScenarios: Scenario[] = [orderSequences];
