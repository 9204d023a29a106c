import { moveMarkPrice } from '../exchange/position-exits.js';
import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import { positiveDecimal, refused } from './control-answers.js';
import type { ControlCall } from './control-route.js';

/**
 * `POST /test/products/{product_id}/mark_price` with `{"price": "6100000"}`: sets the mark
 * price positions' P&L are valued at, as the exchange's own price feed would move it, until the
 * product's next fill, and closes the positions it reaches (take profit, stop loss,
 * liquidation).
 */
export async function setMarkPrice({
  sequencer,
  clock,
  params,
  body,
}: ControlCall<{ product_id: number }>): Promise<Serialized> {
  const price = positiveDecimal(body.price);
  if (!price) return refused('price', 'must_be_a_positive_decimal_string');
  const id = params.product_id;
  const set = await sequencer.run((journal) => {
    const product = journal.exchange.products.get(id);
    if (!product) return uncachedJson(404, { message: 'Product not found' });
    // Only positions are valued at a mark: a product with none has no mark to move.
    if (!product.marginEnabled && !product.perpetual) {
      return refused('product_id', 'not_a_margin_product');
    }
    moveMarkPrice(journal, id, price, clock.now());
    return undefined;
  });
  return set ?? uncachedJson(200, { product_id: id, mark_price: String(body.price) });
}
