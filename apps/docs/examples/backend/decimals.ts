import {
  fetchMarketRules,
  priceToPrecision,
  quantityToPrecision,
} from '@exchange-kit/exchange-client/precision';
import { client } from './client.js';

const [product] = await client.products.list();
if (!product) throw new Error('the exchange lists no product');

// The exchange refuses a price off the product's tick and a quantity off its base currency's
// step. Round to both first, exactly: 0.1 + 0.2 is 0.30000000000000004 as a double, and goes
// out as "0.3".
const rules = await fetchMarketRules(client, product.id);
const quantity = quantityToPrecision(rules, 0.1 + 0.2); // 'down' unless told otherwise
const price = priceToPrecision(rules, '1000.4', 'down'); // a buyer rounds down: "1000" on a tick of 1
console.log(`tick ${rules.tick_size}, step ${rules.quantity_step}: ${quantity} at ${price}`);

// Decimals go out as strings and come back as exact decimal strings, whatever JSON the
// server sent: a number, a string, or a number a double cannot hold.
const order = await client.orders.create({
  order_type: 'limit',
  product_id: product.id,
  side: 'buy',
  quantity,
  price,
});
console.log(`placed ${order.quantity} at ${order.price}`);
await client.orders.cancel({ id: order.id });
