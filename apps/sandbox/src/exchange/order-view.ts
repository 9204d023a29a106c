import type { components } from '@exchange-kit/contract/exchange';
import { D, type ExchangeState, type Fill, type Order } from '../state/exchange-state.js';
import { fillsOfOrder } from './fill-history.js';
import { fractionalSeconds } from './market.js';

type OrderBody = components['schemas']['Order'];

const seconds = (ms: number) => Math.floor(ms / 1000);
const decimal = (value: D) => value.toFixed();
const nullable = (value: D | null) => (value === null ? null : value.toFixed());

/** Where an order is named: `/orders/{order_id}` or `/orders/client:{client_order_id}`. */
export type OrderKey = { id: string } | { clientOrderId: string };

/** One of `userId`'s orders, in any state. */
export function findOrder(state: ExchangeState, userId: number, key: OrderKey): Order | undefined {
  if ('clientOrderId' in key) return state.orderByClientId(userId, key.clientOrderId);
  if (!/^[0-9]{1,15}$/.test(key.id)) return undefined;
  const order = state.orders.get(Number(key.id));
  return order?.userId === userId ? order : undefined;
}

// The average is cut, not rounded, to 8 places so a buyer's average never shows above what
// was paid; filled_value itself stays exact.
function averagePrice(order: Order): D {
  if (order.filledQuantity.isZero()) return new D(0);
  return order.filledValue.div(order.filledQuantity).toDecimalPlaces(8, D.ROUND_DOWN);
}

/**
 * The Order of the spec. `withMargin` adds margin_used (what the order holds and what its
 * open position holds), margin_interest and unwound_trade_leverage_level, which the
 * update_tpsl and cancel responses carry.
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
    order_fee: '0',
    // A take profit or stop loss closes (nets out) what an order opened.
    source_action: order.unwoundTradeId === null ? 'manual' : 'netout_open',
    unwound_trade_id: order.unwoundTradeId,
    trade_id: order.tradeId,
  };
  if (withMargin) {
    const opened = order.tradeId === null ? undefined : state.positions.get(order.tradeId);
    const unwound =
      spot || order.unwoundTradeId === null ? undefined : state.positions.get(order.unwoundTradeId);
    view.margin_used = spot ? '0' : decimal(order.reservedAmount.plus(opened?.margin ?? 0));
    view.margin_interest = '0';
    view.unwound_trade_leverage_level = unwound?.leverageLevel ?? null;
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

/** The Order of the spec with its fills, as `with_details=1` asks for it. */
export function orderWithExecutions(state: ExchangeState, order: Order): OrderBody {
  return {
    ...orderView(state, order),
    executions: fillsOfOrder(state, order).map((fill) => ({
      ...executionView(fill),
      my_side: order.side,
      timestamp: fractionalSeconds(fill.createdAt),
    })),
  };
}
