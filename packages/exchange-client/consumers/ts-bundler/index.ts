import { zOrder } from '@exchange-kit/contract/exchange/schemas';
import {
  createExchangeClient,
  type Order,
  type OrderCreateInputOf,
  OrderNotLiveError,
  type OrderRef,
} from '@exchange-kit/exchange-client';
import { type MarketRules, priceToPrecision } from '@exchange-kit/exchange-client/precision';
import { createPartnerClient, hasStatus, type Transaction } from '@exchange-kit/partner-client';

const client = createExchangeClient({
  baseUrl: 'http://127.0.0.1:4000',
  tokenId: 't',
  tokenSecret: 's',
});
const ref: OrderRef = { clientOrderId: 'a' };
export async function cancel(): Promise<string> {
  try {
    const order: Order = await client.orders.cancel(ref);
    const price: string = order.price;
    return price;
  } catch (error) {
    if (error instanceof OrderNotLiveError) return String(error.status satisfies 404);
    throw error;
  }
}
export const isPending = (t: Transaction) => hasStatus(t, 'PENDING');
export const partner = createPartnerClient({
  partnersUrl: 'http://127.0.0.1:4000',
  publicApiKey: 'pk',
});
export const schema = zOrder;
export const rules: MarketRules = {
  product_id: '1',
  tick_size: '0.5',
  quantity_step: '0.00000001',
  minimum_quantity: '0.0001',
};
export const limit: OrderCreateInputOf<'limit'> = {
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: '0.01',
  price: priceToPrecision(rules, '65010.3', 'down'),
};
