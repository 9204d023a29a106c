import { OrderNotLiveError } from '@exchange-kit/exchange-client';
import { client } from './client.js';

const [product] = await client.products.list();
if (!product) throw new Error('the exchange lists no product');
const clientOrderId = `edit-${Date.now().toString(36)}`;
const order = await client.orders.create({
  order_type: 'limit',
  product_id: product.id,
  side: 'buy',
  quantity: '0.01',
  price: '1000',
  client_order_id: clientOrderId,
});

// Edit by the id you chose...
const edited = await client.orders.edit({ clientOrderId }, { price: '1001' });
console.log(`order ${edited.id} now at ${edited.price}`);
// ...or by the system id.
await client.orders.updateTpsl({ id: edited.id }, { take_profit: '2000' });
const cancelled = await client.orders.cancel({ id: order.id });
console.log(`order ${cancelled.id} is ${cancelled.status}`);

try {
  await client.orders.cancel({ clientOrderId });
} catch (error) {
  // 404 on an order that is no longer live, as its own type.
  if (!(error instanceof OrderNotLiveError)) throw error;
  console.log('already cancelled');
}
