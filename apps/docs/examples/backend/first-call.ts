import { client } from './client.js';

const [product] = await client.products.list();
if (!product) throw new Error('the exchange lists no product');
console.log(`product ${product.id}: ${product.currency_pair_code}, best bid ${product.market_bid}`);

// A buy far below the market rests as a live order, under an id of your own.
const clientOrderId = `first-${Date.now().toString(36)}`;
const order = await client.orders.create({
  order_type: 'limit',
  product_id: product.id,
  side: 'buy',
  quantity: '0.01',
  price: '1000',
  client_order_id: clientOrderId,
});
console.log(`order ${order.id} is ${order.status}`);
