import type { Journal } from '../state/journal.js';
import { D, type Order, type Product } from '../state/records.js';
import { type FeeRole, fillFee } from './fee-rules.js';
import { houseUserId, postEntry } from './ledger.js';
import { positionClosedBy } from './positions.js';

/**
 * Charges one side of fill `fillId` its fee, as a `trade_fee` entry against the execution,
 * paid to the house. A spot side pays from what it just received. A margin fill that opens or
 * adds to a trade pays it whole, or the call is refused with not_enough_free_balance: a sell
 * that takes a bid above its price holds more margin than it reserved, and a market order
 * reserves nothing. A fill that closes a position at a loss that took its whole margin pays
 * what is left free, no more.
 * The fee counts in the order's `order_fee`, and in the `close_fee` of the trade it closes.
 */
export function chargeFee(
  journal: Journal,
  order: Order,
  role: FeeRole,
  product: Product,
  fill: { id: number; quantity: D; price: D; now: number },
): void {
  const { currency, amount } = fillFee(order, role, product, fill);
  const closing = positionClosedBy(journal, order);
  const account = journal.exchange.account(order.userId, currency);
  const free = account ? D.max(account.balance.minus(account.reserved), 0) : new D(0);
  const fee = closing ? D.min(amount, free) : amount;
  const source = { type: 'Execution' as const, id: fill.id };
  const charge = (userId: number, amount: D) =>
    postEntry(journal, {
      userId,
      currency,
      amount,
      sourceAction: 'trade_fee',
      source,
      now: fill.now,
    });
  charge(order.userId, fee.neg());
  charge(houseUserId, fee);
  journal.touchOrder(order).feeCharged = order.feeCharged.plus(fee);
  if (closing) journal.touchPosition(closing).closeFee = closing.closeFee.plus(fee);
}
