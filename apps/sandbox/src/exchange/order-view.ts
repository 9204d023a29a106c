import type { components } from '@exchange-kit/contract/exchange';
import { NotFound } from '../handling/errors.js';
import { isLater, type LaterReply, later, type Reply } from '../handling/operation.js';
import type { ExchangeState } from '../state/exchange-state.js';
import type { HistoryReads, OrderKey } from '../state/history.js';
import { orderByKey } from '../state/memory-history.js';
import { D, type Fill, type Order } from '../state/records.js';
import { totalInterest } from './borrowing.js';
import { fractionalSeconds } from './market.js';

type OrderBody = components['schemas']['Order'];

const seconds = (ms: number) => Math.floor(ms / 1000);
const decimal = (value: D) => value.toFixed();
const nullable = (value: D | null) => (value === null ? null : value.toFixed());

export type { OrderKey };

/**
 * One of `userId`'s orders that memory holds: every open one, and a closed one until it is
 * stored; the store keeps the rest (`answerForOrder`).
 */
export const findOrder = orderByKey;

/**
 * The answer about one of `userId`'s orders, in any state: at once when memory holds it and
 * `answer` needs no history, else once read from history. An order nowhere is a 404.
 */
export function answerForOrder<Answer extends Reply>(
  state: ExchangeState,
  userId: number,
  key: OrderKey,
  answer: (order: Order, state: ExchangeState) => Answer | LaterReply<Answer>,
): Answer | LaterReply<Answer> {
  const held = findOrder(state, userId, key);
  if (held) return answer(held, state);
  return later(async (history, now) => {
    const order = await history.order(userId, key);
    if (!order) throw new NotFound('Order not found');
    const reply = answer(order, now);
    return isLater(reply) ? reply.later(history, now) : reply;
  });
}

// The average is cut, not rounded, to 8 places so a buyer's average never shows above what
// was paid; filled_value itself stays exact.
function averagePrice(order: Order): D {
  if (order.filledQuantity.isZero()) return new D(0);
  return order.filledValue.div(order.filledQuantity).toDecimalPlaces(8, D.ROUND_DOWN);
}

/**
 * The Order of the spec. `withMargin` adds margin_used (what the order holds and what its
 * open position holds), margin_interest (what that position's loans have charged) and
 * unwound_trade_leverage_level, which the update_tpsl and cancel responses carry.
 */
export function orderView(state: ExchangeState, order: Order, withMargin = false): OrderBody {
  const product = state.products.get(order.productId);
  const spot = order.tradingType === 'spot';
  const view: OrderBody = {
    id: order.id,
    client_order_id: order.clientOrderId,
    order_type: order.orderType,
    quantity: decimal(order.quantity),
    disc_quantity: '0',
    iceberg_total_quantity: '0',
    side: order.side,
    filled_quantity: decimal(order.filledQuantity),
    price: decimal(order.price),
    average_price: decimal(averagePrice(order)),
    created_at: seconds(order.createdAt),
    updated_at: seconds(order.updatedAt),
    status: order.status,
    leverage_level: order.leverageLevel,
    source_exchange: 0,
    product_id: order.productId,
    product_code: product?.code ?? '',
    currency_pair_code: `${product?.baseCurrency}${product?.quotedCurrency}`,
    funding_currency: order.fundingCurrency,
    crypto_account_id: null,
    margin_type: spot ? null : 'cross',
    take_profit: nullable(order.takeProfit),
    stop_loss: nullable(order.stopLoss),
    trading_type: order.tradingType,
    target: spot ? 'spot' : 'open',
    order_fee: decimal(order.feeCharged),
    // A take profit or stop loss closes (nets out) what an order opened.
    source_action: order.unwoundTradeId === null ? 'manual' : 'netout_open',
    unwound_trade_id: order.unwoundTradeId,
    trade_id: order.tradeId,
  };
  if (withMargin) {
    // A position memory no longer holds is closed, and holds no margin.
    const opened = order.tradeId === null ? undefined : state.positions.get(order.tradeId);
    view.margin_used = spot ? '0' : decimal(order.reservedAmount.plus(opened?.margin ?? 0));
    // The interest its position's loans have charged so far, as the trade shows it.
    view.margin_interest = opened ? decimal(totalInterest(state.loansOf(opened.id))) : '0';
    // An order that closes a trade is placed at the trade's leverage (`exitOrder`).
    view.unwound_trade_leverage_level =
      spot || order.unwoundTradeId === null ? null : order.leverageLevel;
  }
  return view;
}

/** The Execution of the spec: a fill as everyone sees it. */
export const executionView = (fill: Fill): components['schemas']['Execution'] => ({
  id: fill.id,
  quantity: decimal(fill.quantity),
  price: decimal(fill.price),
  taker_side: fill.takerSide,
  created_at: seconds(fill.createdAt),
});

/**
 * The Order of the spec with its fills, as `with_details=1` asks for it: the order as it
 * stands now, and, read from `history` once it holds them, the fills it has had by now. The
 * store read later may hold fills made since; they are left out, so that the fills listed
 * are the ones its `filled_quantity` counts.
 */
export function orderWithExecutions(
  state: ExchangeState,
  order: Order,
): (history: HistoryReads) => Promise<OrderBody> {
  const view = orderView(state, order);
  const { side, trailingStop } = order;
  const lastFill = state.next.fill - 1;
  return async (history) => {
    const fills = await history.fillsOfOrder(order);
    return {
      ...view,
      executions: fills
        .filter((fill) => fill.id <= lastFill)
        .map((fill) => ({
          ...executionView(fill),
          my_side: side,
          timestamp: fractionalSeconds(fill.createdAt),
        })),
      trailing_stop_type: trailingStop?.type ?? null,
      trailing_stop_value: trailingStop ? decimal(trailingStop.value) : null,
      settings: null,
    };
  };
}
