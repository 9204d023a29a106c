import { moveMarkPrice } from '../exchange/position-exits.js';
import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import type { Sequencer } from '../state/sequencer.js';
import { positiveDecimal, refused } from './control-answers.js';

/**
 * `POST /test/products/{product_id}/mark_price` with `{"price": "6100000"}`: sets the mark
 * price positions' P&L are valued at, as the exchange's own price feed would move it, until the
 * product's next fill, and closes the positions it reaches (take profit, stop loss,
 * liquidation). Undefined for any other path.
 */
export async function markPriceControl(
  sequencer: Sequencer,
  now: () => number,
  pathname: string,
  body: Record<string, unknown>,
): Promise<Serialized | undefined> {
  const productId = /^\/test\/products\/([^/]+)\/mark_price$/.exec(pathname)?.[1];
  if (productId === undefined) return undefined;
  if (!/^[1-9][0-9]{0,14}$/.test(productId)) return refused('product_id', 'must_be_an_integer');
  const price = positiveDecimal(body.price);
  if (!price) return refused('price', 'must_be_a_positive_decimal_string');
  const set = await sequencer.run((journal) => {
    const id = Number(productId);
    if (!journal.exchange.products.has(id)) return false;
    moveMarkPrice(journal, id, price, now());
    return true;
  });
  if (!set) return uncachedJson(404, { message: 'Product not found' });
  return uncachedJson(200, { product_id: Number(productId), mark_price: String(body.price) });
}
