-- What each second's fills traded for, the sum of price times quantity: with the volume, the
-- average price of any stretch of seconds (a product's `average_price` over its last day).
-- Older stores are filled in from their fills; the sandbox folds its own batches' fills in
-- (`store/seconds-kept.ts`) and the trigger of 0030 another writer's, now with their value.
ALTER TABLE fill_seconds ADD COLUMN value numeric NOT NULL DEFAULT 0;

UPDATE fill_seconds s SET value = f.value
FROM (
  SELECT product_id, created_at / 1000 AS second, sum(price * quantity) AS value
  FROM fills GROUP BY 1, 2
) f
WHERE f.product_id = s.product_id AND f.second = s.second;

ALTER TABLE fill_seconds ALTER COLUMN value DROP DEFAULT;

CREATE OR REPLACE FUNCTION fold_written_fills() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fill_seconds (product_id, second, low, high, volume, value, first_fill_id, last_fill_id)
  SELECT product_id, created_at / 1000, min(price), max(price), sum(quantity),
    sum(price * quantity), min(id), max(id)
  FROM written_fills GROUP BY 1, 2
  ON CONFLICT (product_id, second) DO UPDATE SET
    low = least(fill_seconds.low, EXCLUDED.low),
    high = greatest(fill_seconds.high, EXCLUDED.high),
    volume = fill_seconds.volume + EXCLUDED.volume,
    value = fill_seconds.value + EXCLUDED.value,
    first_fill_id = least(fill_seconds.first_fill_id, EXCLUDED.first_fill_id),
    last_fill_id = greatest(fill_seconds.last_fill_id, EXCLUDED.last_fill_id);
  RETURN NULL;
END $$;
