import { channelAddress, protocolEvents } from '@exchange-kit/contract/events';
import { Decimal } from 'decimal.js';
import { bodyOf, expectStatus } from '../engine/context.js';
import type { EventsConnection } from '../engine/events-connection.js';
import { Failure, Skip } from '../engine/outcome.js';
import { authenticate, connect, expectEvent, subscribed } from './events.js';
import { ownFillsOf } from './executions.js';
import { insideSpread, placed } from './order-trades.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { moveMark, productOf } from './trades-at-mark.js';

type Row = Record<string, unknown>;

const makerFill = 'EVENTS-MAKER-FILL';
const markMoved = 'EVENTS-MARK-MOVES-PRODUCT';

/** The product's pair as the channels name it. */
async function pairOf(context: ScenarioContext, productId: string): Promise<string> {
  return String((await productOf(context, productId)).currency_pair_code).toLowerCase();
}

/**
 * A buy of the caller's rests inside the spread and another trader's sell takes it: the fill
 * reaches the caller's user_executions_cash channel, the caller's side as executions/me lists it.
 */
async function checkMakerFill(context: ScenarioContext, events: EventsConnection) {
  const other = await context.anotherTrader();
  const { primary } = await context.market();
  const channel = channelAddress('userExecutions', { pair: await pairOf(context, primary.id) });
  expectEvent(await authenticate(context, events), protocolEvents.authSuccess, 'a valid JWT');
  await subscribed(events, channel, `the caller's own fills, ${channel}`);
  const price = await insideSpread(context, primary.id);
  const { ref } = await placed(context, primary, {
    side: 'buy',
    quantity: primary.quantity,
    price: price.toFixed(),
    trading_type: 'spot',
  });
  const from = events.frames.length;
  const sold = await other.call('createOrder', {
    body: {
      order_type: 'limit',
      product_id: primary.id,
      side: 'sell',
      quantity: primary.quantity,
      price: price.toFixed(),
    },
  });
  expectStatus(sold, 200, "200: the other trader's sell, filled");
  if (bodyOf(sold).status !== 'filled') {
    throw new Failure(
      `another trader's sell at the caller's resting price is ${String(bodyOf(sold).status)}`,
      {
        documented: "filled against the caller's buy, which rests alone at its price",
        call: sold,
        received: sold.responseText.slice(0, 300),
      },
    );
  }
  const { mine } = await ownFillsOf(context, ref);
  const fill = mine[0] as Row;
  const event = await events.next(
    from,
    (frame) =>
      frame.channel === channel && String((frame.data as Row | undefined)?.id) === String(fill.id),
    `fill ${String(fill.id)}, made on the caller's resting buy, on ${channel}`,
  );
  const data = event.data as Row;
  if (data.my_side !== 'buy' || !new Decimal(String(data.price)).eq(String(fill.price))) {
    throw new Failure(`fill ${String(fill.id)} reaches ${channel} as ${JSON.stringify(data)}`, {
      documented: `as GET /executions/me lists it: my_side buy, price ${String(fill.price)}`,
      received: event.raw.slice(0, 300),
    });
  }
  return `fill ${String(fill.id)} of the caller's resting buy, taken by another trader, reached ${channel}`;
}

/**
 * A perpetual's mark moved a few ticks: its channel carries the product with the new
 * mark_price (a currency pair shows no mark, so its answer does not change). The mark is put
 * back after.
 */
async function checkMarkMoved(context: ScenarioContext, events: EventsConnection) {
  const listed = await context.caller.call('listProducts', { query: { perpetual: '1' } });
  expectStatus(listed, 200);
  // A perpetual shows a mark_price, null before its first trade or move.
  const perpetual = ((listed.json as Row[] | undefined) ?? []).find((product) =>
    Object.hasOwn(product, 'mark_price'),
  );
  if (!perpetual) throw new Skip('no product shows a mark_price to move (a perpetual)');
  const productId = String(perpetual.id);
  const channel = channelAddress('productCash', {
    pair: String(perpetual.currency_pair_code).toLowerCase(),
    productId,
  });
  await subscribed(events, channel, `the product's channel ${channel}`);
  const known = perpetual.mark_price ?? perpetual.last_traded_price;
  const was = known === null || known === undefined ? undefined : new Decimal(String(known));
  const mark = (was ?? new Decimal(1000)).plus(
    new Decimal(String(perpetual.tick_size ?? 1)).times(7),
  );
  const from = events.frames.length;
  await moveMark(context, productId, mark);
  try {
    await events.next(
      from,
      (frame) =>
        frame.channel === channel &&
        (frame.data as Row | undefined)?.mark_price !== undefined &&
        new Decimal(String((frame.data as Row).mark_price)).eq(mark),
      `product ${productId} with mark_price ${mark.toFixed()} on ${channel}`,
    );
  } finally {
    // Back where it was; a mark that was never set stays at the one moved to.
    if (was) await moveMark(context, productId, was);
  }
  return `perpetual ${productId}'s mark moved to ${mark.toFixed()} reached ${channel}`;
}

const covers = [makerFill, markMoved];

const fillsAndMarks: Scenario = {
  name: "events: a fill of the caller's resting order, and the mark price moved",
  profile: 'events',
  requires: ['orders'],
  covers,
  needs: [{ step: 'anotherTrader' }, { step: 'moveMarkPrice' }],
  // Its buy rests inside the spread, and the mark it moves values every open trade.
  exclusive: true,
  async run(context) {
    const events = await connect(context, covers);
    if (!events) return;
    try {
      await context.evidence.check(makerFill, () => checkMakerFill(context, events));
      await context.evidence.check(markMoved, () => checkMarkMoved(context, events));
    } finally {
      events.close();
    }
  },
};

export const eventFillScenarios: Scenario[] = [fillsAndMarks];
