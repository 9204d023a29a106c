import { Decimal } from 'decimal.js';
import { type OrderRef, type ProductInfo, refOf } from '../engine/adapter.js';
import { bodyOf, expectStatus, failAt } from '../engine/context.js';
import { Skip } from '../engine/outcome.js';
import { checkSeenOnce, seenOnce } from './executions.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { listOf, type Row } from './trades.js';
import { moveMark, productOf, whileMarkMoves } from './trades-at-mark.js';

const everyTrade = 'TRADE-ORDER-EVERY-TRADE';

/**
 * A price inside the product's spread, where no order of the book rests: an order placed there
 * is filled only by the run's own order on the other side.
 */
export async function insideSpread(context: ScenarioContext, productId: string): Promise<Decimal> {
  const product = await productOf(context, productId);
  const tick = new Decimal(String(product.tick_size ?? '0.00000001'));
  if (product.market_bid === null || product.market_ask === null)
    throw new Skip(`product ${productId} has no bid or no ask to place an order between`);
  const price = new Decimal(String(product.market_bid)).plus(tick);
  if (price.gte(String(product.market_ask)))
    throw new Skip(`product ${productId}'s spread is one tick: no price rests inside it`);
  return price;
}

export async function placed(
  context: ScenarioContext,
  product: ProductInfo,
  body: Row,
): Promise<{ order: Row; ref: OrderRef }> {
  const call = await context.caller.call('createOrder', {
    body: {
      order_type: 'limit',
      product_id: product.id,
      client_order_id: context.clientOrderId(),
      ...body,
    },
  });
  if (call.status !== 200)
    throw new Skip(`an order inside the spread was refused: ${call.status} ${call.responseText}`);
  const order = bodyOf(call);
  const ref = refOf(order, {
    product,
    side: body.side as 'buy' | 'sell',
    tradingType: body.trading_type as 'spot' | 'margin',
  });
  context.created.push(ref);
  return { order, ref };
}

/** A spot sell of `quantity` at `price`, which only the run's resting buy can fill. */
export async function sellInto(
  context: ScenarioContext,
  product: ProductInfo,
  quantity: string,
  price: Decimal,
): Promise<OrderRef> {
  const { order, ref } = await placed(context, product, {
    side: 'sell',
    quantity,
    price: price.toFixed(),
    trading_type: 'spot',
  });
  if (order.status !== 'filled')
    throw new Skip(
      `a sell against the caller's own resting buy is ${String(order.status)}: the server does not fill one order of a user against another (self-trade prevention)`,
    );
  return ref;
}

/**
 * A spot buy of two lots of the caller's inside the spread, half filled by its own sell: a
 * partly filled order, and the price it rests at, which the caller cancels when done with it.
 * When the sell cannot fill it (a Skip), the buy is cancelled before the Skip goes on.
 */
export async function halfFilledBuy(
  context: ScenarioContext,
  product: ProductInfo,
): Promise<{ ref: OrderRef; price: Decimal }> {
  const price = await insideSpread(context, product.id);
  const { ref } = await placed(context, product, {
    side: 'buy',
    quantity: new Decimal(product.quantity).times(2).toFixed(),
    price: price.toFixed(),
    trading_type: 'spot',
  });
  try {
    await sellInto(context, product, product.quantity, price);
  } catch (error) {
    await context.caller.call('cancelOrder', { path: { order_id: String(ref.id) } });
    throw error;
  }
  return { ref, price };
}

const orderTrades = (context: ScenarioContext, order: OrderRef) =>
  context.caller.call('listOrderTrades', { path: { order_id: String(order.id) } });

/**
 * A margin buy of two lots rests inside the spread; a sell of one lot fills half of it and
 * opens a trade; the mark liquidates that trade while the buy still rests; a second sell fills
 * the rest and opens another trade. The order's trades are then both, oldest first.
 */
async function checkEveryTrade(context: ScenarioContext, product: ProductInfo): Promise<string> {
  const lot = product.quantity;
  const price = await insideSpread(context, product.id);
  const { ref: buy } = await placed(context, product, {
    side: 'buy',
    quantity: new Decimal(lot).times(2).toFixed(),
    price: price.toFixed(),
    trading_type: 'margin',
    leverage_level: 2,
  });
  await sellInto(context, product, lot, price);
  const [first] = listOf(await orderTrades(context, buy));
  if (!first) throw new Skip(`order ${buy.id}, filled in part, opened no trade`);
  if (first.liquidation_price === null)
    throw new Skip(`trade ${String(first.id)} has no liquidation_price for the mark to pass`);
  const beyond = new Decimal(String(first.liquidation_price))
    .times('0.98')
    .toDecimalPlaces(8, Decimal.ROUND_DOWN);
  await moveMark(context, product.id, beyond);
  await moveMark(context, product.id, price);
  await sellInto(context, product, lot, price);

  const read = await context.caller.call('getOrder', { path: { order_id: String(buy.id) } });
  expectStatus(read, 200);
  const lastTradeId = String(bodyOf(read).trade_id);
  const call = await orderTrades(context, buy);
  const trades = listOf(call);
  const [earlier, later] = trades;
  const listed = trades.map((trade) => `${String(trade.id)} ${String(trade.status)}`).join(', ');
  if (
    trades.length !== 2 ||
    !earlier ||
    !later ||
    String(earlier.id) !== String(first.id) ||
    earlier.status !== 'closed' ||
    later.status !== 'open' ||
    String(later.id) !== lastTradeId ||
    !new Decimal(String(earlier.quantity)).eq(lot) ||
    !new Decimal(String(later.quantity)).eq(lot)
  ) {
    failAt(
      `order ${buy.id}'s trades are [${listed}]`,
      call,
      `[${String(first.id)} closed, ${lastTradeId} open], each of quantity ${lot}`,
    );
  }
  await context.caller.call('closeTrade', { path: { trade_id: lastTradeId } });
  return `order ${buy.id} lists trade ${String(first.id)} (liquidated while it rested) then ${lastTradeId}`;
}

const everyTradeOfOrder: Scenario = {
  name: 'a margin order whose trade was liquidated while it rested lists that trade and the next',
  profile: 'orders',
  covers: [everyTrade],
  needs: [{ step: 'moveMarkPrice' }],
  // The mark values every open trade of the product: no other scenario's may be open meanwhile.
  exclusive: true,
  run: (context) =>
    whileMarkMoves(context, everyTrade, async (product) => {
      if (!product.marginEnabled) {
        context.evidence.record({
          requirementId: everyTrade,
          outcome: 'skip',
          message: 'no product with margin trading',
        });
        return;
      }
      await context.evidence.check(everyTrade, () => checkEveryTrade(context, product));
    }),
};

/**
 * A spot buy of the caller's rests inside the spread and its own sell fills it: the fill is
 * seen on the maker's side (the buy) as on the taker's.
 */
async function checkSeenByMaker(context: ScenarioContext): Promise<string> {
  const { primary: product } = await context.market();
  const price = await insideSpread(context, product.id);
  const { ref: buy } = await placed(context, product, {
    side: 'buy',
    quantity: product.quantity,
    price: price.toFixed(),
    trading_type: 'spot',
  });
  const sell = await sellInto(context, product, product.quantity, price);
  const seen = [await checkSeenOnce(context, buy), await checkSeenOnce(context, sell)];
  return `the maker's side and the taker's: ${seen.join('; ')}`;
}

const makerFills: Scenario = {
  name: "a fill between two orders of the caller's, seen by its maker and its taker",
  profile: 'orders',
  covers: [seenOnce],
  // Its buy rests at the best bid: another scenario's sell would take it.
  exclusive: true,
  run: (context) => context.evidence.check(seenOnce, () => checkSeenByMaker(context)).then(),
};

export const orderTradeScenarios: Scenario[] = [everyTradeOfOrder, makerFills];
