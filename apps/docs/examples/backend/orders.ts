// #region client
import {
  createExchangeClient,
  OrderNotLiveError,
  RateLimitedError,
  ValidationError,
} from '@exchange-kit/exchange-client';
import { env } from '../sandbox-env.js';

const client = createExchangeClient({
  baseUrl: env.exchangeUrl,
  tokenId: env.tokenId,
  tokenSecret: env.tokenSecret, // server side only: it signs every call
});
// #endregion client

const run = Date.now().toString(36); // keeps the client order ids of each run apart

// #region first-call
const [product] = await client.products.list();
if (!product) throw new Error('the exchange lists no product');
console.log(`product ${product.id}: ${product.currency_pair_code}, best bid ${product.market_bid}`);

// A buy far below the market rests as a live order.
const order = await client.orders.create({
  order_type: 'limit',
  product_id: product.id,
  side: 'buy',
  quantity: '0.01',
  price: '1000',
  client_order_id: `docs-${run}-1`,
});
console.log(`order ${order.id} is ${order.status}`);
// #endregion first-call

// #region edit-cancel
// Edit by the id you chose...
const edited = await client.orders.edit({ clientOrderId: `docs-${run}-1` }, { price: '1001.50' });
// ...or by the system id.
await client.orders.updateTpsl({ id: edited.id }, { take_profit: '2000' });
const cancelled = await client.orders.cancel({ id: order.id });
console.log(`order ${cancelled.id} is ${cancelled.status}`);

try {
  await client.orders.cancel({ clientOrderId: `docs-${run}-1` });
} catch (error) {
  // 404 on an order that is no longer live, as its own type.
  if (!(error instanceof OrderNotLiveError)) throw error;
  console.log('already cancelled');
}
// #endregion edit-cancel

// #region cancel-all
for (const side of ['buy', 'sell'] as const) {
  await client.orders.create({
    order_type: 'limit',
    product_id: product.id,
    side,
    quantity: '0.01',
    price: side === 'buy' ? '1000' : '900000000',
    client_order_id: `docs-${run}-${side}`,
  });
}
// Filters combine: only this product's live buys are cancelled.
const gone = await client.orders.cancelAll({ product_id: String(product.id), side: 'buy' });
console.log(`cancel_all cancelled ${gone.map((o) => o.client_order_id).join(', ')}`);
// No filter: every live order of the token's user.
await client.orders.cancelAll();
// #endregion cancel-all

// #region stops
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
const stopped = await client.orders.cancelAll({ product_id: String(product.id) });
console.log(
  `cancelled ${stopped.length} stops: ${[trailing.id, breakout.id].every((id) => stopped.some((o) => o.id === id))}`,
);
// #endregion stops

// #region decimals
// Decimals go out as strings and come back as exact decimal strings, whatever JSON the
// server sent: a number, a string, or a number a double cannot hold.
const precise = await client.orders.create({
  order_type: 'limit',
  product_id: product.id,
  side: 'buy',
  quantity: 0.3, // a number is sent as the string "0.3"; prefer strings
  price: '1000.000000000000000001',
  client_order_id: `docs-${run}-precise`,
});
console.log(`price kept to the digit: ${precise.price}`);
await client.orders.cancel({ id: precise.id });
// #endregion decimals

// #region errors
try {
  await client.orders.create({
    order_type: 'limit',
    product_id: product.id,
    side: 'buy',
    quantity: '-1',
    price: '1000',
  });
} catch (error) {
  if (error instanceof ValidationError) {
    console.log(`rejected with ${error.status}: ${JSON.stringify(error.fields)}`);
  } else if (error instanceof RateLimitedError) {
    console.log(`rate limited, retry after ${error.retryAfter} s`);
  } else throw error;
}
// #endregion errors
