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

-- How many fills of each user's orders each product has, a fill between two of the user's
-- orders once for each, as their own fills list them: their pages' count without counting.
CREATE TABLE own_fill_counts (
  user_id bigint NOT NULL,
  product_id bigint NOT NULL,
  fills bigint NOT NULL,
  PRIMARY KEY (user_id, product_id)
);

INSERT INTO own_fill_counts (user_id, product_id, fills)
SELECT o.user_id, o.product_id, count(*) FROM fills f
JOIN orders o ON o.id = f.taker_order_id OR o.id = f.maker_order_id
GROUP BY o.user_id, o.product_id;

CREATE FUNCTION count_written_own_fills() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO own_fill_counts (user_id, product_id, fills)
  SELECT o.user_id, o.product_id, count(*) FROM written_fills f
  JOIN orders o ON o.id = f.taker_order_id OR o.id = f.maker_order_id
  GROUP BY o.user_id, o.product_id
  ON CONFLICT (user_id, product_id) DO UPDATE SET fills = own_fill_counts.fills + EXCLUDED.fills;
  RETURN NULL;
END
$$;

CREATE TRIGGER own_fills_counted AFTER INSERT ON fills REFERENCING NEW TABLE AS written_fills
FOR EACH STATEMENT EXECUTE FUNCTION count_written_own_fills();

-- How many ledger entries each user has of each currency and kind: the count of a page of
-- transactions, read from a few rows.
CREATE TABLE ledger_entry_counts (
  user_id bigint NOT NULL,
  currency text NOT NULL,
  source_action text NOT NULL,
  entries bigint NOT NULL,
  PRIMARY KEY (user_id, currency, source_action)
);

INSERT INTO ledger_entry_counts (user_id, currency, source_action, entries)
SELECT user_id, currency, source_action, count(*) FROM ledger_entries
GROUP BY user_id, currency, source_action;

CREATE FUNCTION count_written_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_entry_counts (user_id, currency, source_action, entries)
  SELECT user_id, currency, source_action, count(*) FROM written_entries
  GROUP BY user_id, currency, source_action
  ON CONFLICT (user_id, currency, source_action)
  DO UPDATE SET entries = ledger_entry_counts.entries + EXCLUDED.entries;
  RETURN NULL;
END
$$;

CREATE TRIGGER ledger_entries_counted AFTER INSERT ON ledger_entries
REFERENCING NEW TABLE AS written_entries
FOR EACH STATEMENT EXECUTE FUNCTION count_written_entries();

-- Each entry's place among its user's entries of its currency, from 1, oldest first: a page
-- of them, newest first, is a range of places, read without walking the pages before it.
ALTER TABLE ledger_entries ADD COLUMN currency_place bigint;

UPDATE ledger_entries e SET currency_place = placed.place
FROM (SELECT id, row_number() OVER (PARTITION BY user_id, currency ORDER BY id) AS place
      FROM ledger_entries) AS placed
WHERE e.id = placed.id;

ALTER TABLE ledger_entries ALTER COLUMN currency_place SET NOT NULL;

CREATE UNIQUE INDEX ledger_entries_by_currency_place
ON ledger_entries (user_id, currency, currency_place);

-- An entry written without its place (the sandbox writes none) takes the next one.
CREATE FUNCTION place_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.currency_place IS NULL THEN
    NEW.currency_place := coalesce((SELECT max(currency_place) FROM ledger_entries
      WHERE user_id = NEW.user_id AND currency = NEW.currency), 0) + 1;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER ledger_entries_placed BEFORE INSERT ON ledger_entries
FOR EACH ROW EXECUTE FUNCTION place_entry();
