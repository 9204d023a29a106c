-- Fills stay in the store too: a product's public fills page newest first by id, and a read
-- from a second on walks them in id order from the first made then.

CREATE INDEX fills_by_product_id ON fills (product_id, id);

-- How many fills each product has, kept as fills are written (by the sandbox or anything
-- else), so that a start reads a few rows where counting the fills reads them all.
CREATE TABLE product_fill_counts (
  product_id bigint PRIMARY KEY REFERENCES products (id),
  fills bigint NOT NULL
);

INSERT INTO product_fill_counts (product_id, fills)
SELECT product_id, count(*) FROM fills GROUP BY product_id;

CREATE FUNCTION count_written_fills() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO product_fill_counts (product_id, fills)
  SELECT product_id, count(*) FROM written_fills GROUP BY product_id
  ON CONFLICT (product_id) DO UPDATE SET fills = product_fill_counts.fills + EXCLUDED.fills;
  RETURN NULL;
END
$$;

CREATE TRIGGER fills_counted AFTER INSERT ON fills REFERENCING NEW TABLE AS written_fills
FOR EACH STATEMENT EXECUTE FUNCTION count_written_fills();

