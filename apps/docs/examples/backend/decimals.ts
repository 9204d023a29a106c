import { client } from './client.js';

const [product] = await client.products.list();
if (!product) throw new Error('the exchange lists no product');

// Decimals go out as strings and come back as exact decimal strings, whatever JSON the
// server sent: a number, a string, or a number a double cannot hold.
const precise = await client.orders.create({
  order_type: 'limit',
  product_id: product.id,
  side: 'buy',
  quantity: 0.3, // a number is sent as the string "0.3"; prefer strings
  price: '1000.000000000000000001',
});
console.log(`price kept to the digit: ${precise.price}`);
await client.orders.cancel({ id: precise.id });
