-- Each product's fills folded per second: the lowest and highest price, the volume, and the
-- first and last fill, by id (times only grow with ids). A start reads a product's last day of
-- these, at most 86,400 rows, where it folded the day's fills, a million in a busy one. The
-- sandbox folds its own batches' fills in (`store/counts-kept.ts`); the trigger folds only
-- another writer's, as the counts of fills are kept (0021).
CREATE TABLE fill_seconds (
  product_id bigint NOT NULL,
  second bigint NOT NULL,
  low numeric NOT NULL,
  high numeric NOT NULL,
  volume numeric NOT NULL,
  first_fill_id bigint NOT NULL,
  last_fill_id bigint NOT NULL,
  PRIMARY KEY (product_id, second)
);

INSERT INTO fill_seconds (product_id, second, low, high, volume, first_fill_id, last_fill_id)
SELECT product_id, created_at / 1000, min(price), max(price), sum(quantity), min(id), max(id)
FROM fills GROUP BY 1, 2;

CREATE FUNCTION fold_written_fills() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fill_seconds (product_id, second, low, high, volume, first_fill_id, last_fill_id)
  SELECT product_id, created_at / 1000, min(price), max(price), sum(quantity), min(id), max(id)
  FROM written_fills GROUP BY 1, 2
  ON CONFLICT (product_id, second) DO UPDATE SET
    low = least(fill_seconds.low, EXCLUDED.low),
    high = greatest(fill_seconds.high, EXCLUDED.high),
    volume = fill_seconds.volume + EXCLUDED.volume,
    first_fill_id = least(fill_seconds.first_fill_id, EXCLUDED.first_fill_id),
    last_fill_id = greatest(fill_seconds.last_fill_id, EXCLUDED.last_fill_id);
  RETURN NULL;
END $$;

CREATE TRIGGER fills_folded_per_second AFTER INSERT ON fills
REFERENCING NEW TABLE AS written_fills FOR EACH STATEMENT
WHEN (current_setting('exchange_sandbox.writer', true) IS DISTINCT FROM 'sandbox')
EXECUTE FUNCTION fold_written_fills();
