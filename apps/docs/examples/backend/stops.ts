import { client } from './client.js';

const [product] = await client.products.list();
if (!product) throw new Error('the exchange lists no product');

// Buy at market, then let a trailing stop follow the price: it sells once the price falls
// 5% below the highest trade since. Its price is where it triggers now.
const bought = await client.orders.create({
  order_type: 'market',
  product_id: product.id,
  side: 'buy',
  quantity: '0.01',
});
const trailing = await client.orders.create({
  order_type: 'trailing_stop',
  product_id: product.id,
  side: 'sell',
  quantity: '0.01',
  trailing_stop_type: 'percentage',
  trailing_stop_value: '5',
});
console.log(`bought at ${bought.average_price}, trailing stop triggers at ${trailing.price}`);
// A stop buys at market once a trade reaches its price: here, a breakout far above.
const breakout = await client.orders.create({
  order_type: 'stop',
  product_id: product.id,
  side: 'buy',
  quantity: '0.01',
  price: '900000000',
});
// Both wait outside the book, live, and are cancelled like any order.
const stopped = await client.orders.cancelAll({ product_id: product.id });
console.log(
  `cancelled ${stopped.length} stops: ${[trailing.id, breakout.id].every((id) => stopped.some((o) => o.id === id))}`,
);
