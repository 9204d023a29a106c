import {
  D,
  type Fill,
  type LedgerEntry,
  type Order,
  type OrderStatus,
  type TrailingStop,
} from '../state/exchange-state.js';

type Row = Record<string, unknown>;

/** A stored order, as memory holds it. */
export function orderOf(row: Row, decimal: (value: unknown) => D): Order {
  const nullable = (value: unknown) => (value === null ? null : decimal(value));
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    productId: Number(row.product_id),
    clientOrderId: row.client_order_id === null ? null : String(row.client_order_id),
    orderType: row.order_type as Order['orderType'],
    side: row.side as Order['side'],
    tradingType: row.trading_type as Order['tradingType'],
    quantity: decimal(row.quantity),
    filledQuantity: decimal(row.filled_quantity),
    price: decimal(row.price),
    filledValue: decimal(row.filled_value),
    status: row.status as OrderStatus,
    leverageLevel: Number(row.leverage_level),
    fundingCurrency: String(row.funding_currency),
    takeProfit: nullable(row.take_profit),
    stopLoss: nullable(row.stop_loss),
    conditional: Boolean(row.conditional),
    tradeId: row.trade_id === null ? null : Number(row.trade_id),
    unwoundTradeId: row.unwound_trade_id === null ? null : Number(row.unwound_trade_id),
    trailingStop:
      row.trailing_stop_type === null
        ? null
        : {
            type: row.trailing_stop_type as TrailingStop['type'],
            value: decimal(row.trailing_stop_value),
          },
    reservedAmount: decimal(row.reserved_amount),
    reservedCurrency: String(row.reserved_currency),
    sequence: Number(row.sequence),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/**
 * Reads decimals so that equal values share one object: a D is never changed in place, and
 * a store of a million orders repeats a few thousand prices and quantities (and zeros) far
 * more often than it holds new ones. Past `most` distinct values a new one is read alone.
 */
export function sharedDecimals(most = 100_000): (value: unknown) => D {
  const seen = new Map<string, D>();
  return (value) => {
    const text = String(value);
    let decimal = seen.get(text);
    if (decimal === undefined) {
      decimal = new D(text);
      if (seen.size < most) seen.set(text, decimal);
    }
    return decimal;
  };
}

/** A stored fill, as memory holds it. */
export function fillOf(row: Row, decimal: (value: unknown) => D): Fill {
  return {
    id: Number(row.id),
    productId: Number(row.product_id),
    takerOrderId: Number(row.taker_order_id),
    makerOrderId: Number(row.maker_order_id),
    takerSide: row.taker_side as Fill['takerSide'],
    price: decimal(row.price),
    quantity: decimal(row.quantity),
    createdAt: Number(row.created_at),
  };
}

/** A stored ledger entry, as memory holds it. */
export function entryOf(row: Row, decimal: (value: unknown) => D): LedgerEntry {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    currency: String(row.currency),
    amount: decimal(row.amount),
    balance: decimal(row.balance),
    sourceAction: row.source_action as LedgerEntry['sourceAction'],
    sourceObjectType: row.source_object_type as LedgerEntry['sourceObjectType'],
    sourceObjectId: row.source_object_id === null ? null : Number(row.source_object_id),
    createdAt: Number(row.created_at),
    currencyPlace: Number(row.currency_place),
  };
}
