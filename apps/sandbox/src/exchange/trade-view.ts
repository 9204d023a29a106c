import type { components } from '@exchange-kit/contract/exchange';
import type { ExchangeState } from '../state/exchange-state.js';
import { D, isOpen, type Loan, type Order, type Position, type Product } from '../state/records.js';
import { dailyInterest, totalInterest } from './borrowing.js';
import {
  liquidationPrice,
  maintenanceMargin,
  openPnl,
  openPrice,
  openQuantity,
} from './positions.js';

type TradeBody = components['schemas']['Trade'];

const seconds = (ms: number) => Math.floor(ms / 1000);
// Cut as the P&L a close pays is cut, so a trade never shows more than a close would pay.
const funds = (value: D) => value.toDecimalPlaces(16, D.ROUND_FLOOR);

/** The open orders that close `position`: its take profit (a limit) and stop loss (a stop). */
export function exitOrdersOf(state: ExchangeState, position: Position): Order[] {
  return state.exitsOf(position.id).filter(isOpen);
}

/**
 * The liquidation price as a trade shows it: cut to 8 places towards the side where it fires
 * (down for a long, up for a short), so that a mark at the price shown liquidates. Null where
 * no mark price does, as for a long whose margin outlasts any fall.
 */
function shownLiquidationPrice(position: Position, product: Product): D | null {
  const price = liquidationPrice(position, product);
  if (!price?.isFinite()) return null;
  const long = position.side === 'buy';
  const shown = price.toDecimalPlaces(8, long ? D.ROUND_FLOOR : D.ROUND_CEIL);
  return shown.gt(0) ? shown : null;
}

/**
 * The Trade of the spec. The mark price is the product's (`markPrice`); the close fee is
 * what its closing fills charged (`chargeFee`); interest is its loans' (`borrowing.ts`).
 */
export function tradeView(
  state: ExchangeState,
  position: Position,
  loans: readonly Loan[] = state.loansOf(position.id),
): TradeBody {
  const product = state.products.get(position.productId);
  if (!product) throw new Error(`Position ${position.id} names no product`);
  const mark = state.markPrice(position.productId) ?? openPrice(position);
  const open = funds(openPnl(position, product, mark));
  const maintenance = maintenanceMargin(position, product);
  const exits = exitOrdersOf(state, position);
  const exitPrice = (type: Order['orderType']) =>
    exits.find((order) => order.orderType === type)?.price.toFixed() ?? null;
  const closed = position.closedQuantity;
  return {
    id: position.id,
    currency_pair_code: `${product.baseCurrency}${product.quotedCurrency}`,
    product_id: position.productId,
    status: position.status,
    side: position.side === 'buy' ? 'long' : 'short',
    quantity: position.quantity.toFixed(),
    open_quantity: openQuantity(position).toFixed(),
    close_quantity: closed.toFixed(),
    open_price: openPrice(position).toDecimalPlaces(8, D.ROUND_DOWN).toFixed(),
    close_price: closed.isZero()
      ? null
      : position.closedValue.div(closed).toDecimalPlaces(8, D.ROUND_DOWN).toFixed(),
    leverage_level: position.leverageLevel,
    margin_used: position.margin.toFixed(),
    margin_type: 'cross',
    open_pnl: open.toFixed(),
    close_pnl: position.realizedPnl.toFixed(),
    pnl: open.plus(position.realizedPnl).toFixed(),
    stop_loss: exitPrice('stop'),
    take_profit: exitPrice('limit'),
    funding_currency: position.fundingCurrency,
    liquidation_price: shownLiquidationPrice(position, product)?.toFixed() ?? null,
    maintenance_margin: maintenance.toFixed(),
    close_fee: position.closeFee.toFixed(),
    total_interest: totalInterest(loans).toFixed(),
    daily_interest: dailyInterest(loans).toFixed(),
    trading_type: position.tradingType,
    created_at: seconds(position.createdAt),
    updated_at: seconds(position.updatedAt),
  };
}
