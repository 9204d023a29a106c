-- The mark price test control set on a product (`POST /test/products/{id}/mark_price`) and the
-- product's fill count then: it holds until the product's next fill, a restart included.
CREATE TABLE sandbox_mark_prices (
  product_id bigint PRIMARY KEY REFERENCES products (id),
  price numeric NOT NULL CHECK (price > 0),
  fills bigint NOT NULL CHECK (fills >= 0)
);
