import { client } from './client.js';

const [product] = await client.products.list();
if (!product) throw new Error('the exchange lists no product');
const run = Date.now().toString(36);

for (const side of ['buy', 'sell'] as const) {
  await client.orders.create({
    order_type: 'limit',
    product_id: product.id,
    side,
    quantity: '0.01',
    price: side === 'buy' ? '1000' : '900000000',
    client_order_id: `all-${run}-${side}`,
  });
}
// Filters combine: only this product's live buys are cancelled.
const gone = await client.orders.cancelAll({ product_id: product.id, side: 'buy' });
console.log(`cancel_all cancelled ${gone.map((o) => o.client_order_id).join(', ')}`);
// No filter: every live order of the token's user.
const rest = await client.orders.cancelAll();
console.log(`then ${rest.length} more`);
