import { RateLimitedError, ValidationError } from '@exchange-kit/exchange-client';
import { client } from './client.js';

const [product] = await client.products.list();
if (!product) throw new Error('the exchange lists no product');

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
