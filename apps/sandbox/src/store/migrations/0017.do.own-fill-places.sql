-- A user's own fills of a product page by a range of places, as one currency's ledger entries
-- do (0015): a fill is kept once for each of its orders, as its user sees it, with its place
-- among that user's own fills of the product, from 1, oldest first. A page deep in a long
-- history then reads its own rows, where joining the user's orders to their fills read them
-- all; and the greatest place is the count, which own_fill_counts kept until now.
--
-- A fill between two orders of the same user is there twice: the maker's side first, so that
-- newest first, as pages list them, the taker's comes first. No foreign keys: the rows are
-- made from a fill and its orders alone, and a check of each would slow every fill written.
CREATE TABLE own_fills (
  user_id bigint NOT NULL,
  product_id bigint NOT NULL,
  place bigint NOT NULL,
  fill_id bigint NOT NULL,
  order_id bigint NOT NULL,
  taker boolean NOT NULL,
  -- The fill's, for a user's own fills from a time on, of every product (the fee tier's).
  created_at bigint NOT NULL
);

INSERT INTO own_fills (user_id, product_id, place, fill_id, order_id, taker, created_at)
SELECT user_id, product_id,
  row_number() OVER (PARTITION BY user_id, product_id ORDER BY fill_id, taker),
  fill_id, order_id, taker, created_at
FROM (SELECT o.user_id, o.product_id, f.id AS fill_id, o.id AS order_id, true AS taker,
        f.created_at
      FROM fills f JOIN orders o ON o.id = f.taker_order_id
      UNION ALL
      SELECT o.user_id, o.product_id, f.id, o.id, false, f.created_at
      FROM fills f JOIN orders o ON o.id = f.maker_order_id) AS sides;

ALTER TABLE own_fills ADD PRIMARY KEY (user_id, product_id, place);

CREATE INDEX own_fills_by_time ON own_fills (user_id, created_at);

-- Fills written by anything (the sandbox, a bulk insert) take the next places of their users,
-- in one statement per statement that writes them.
CREATE FUNCTION place_written_own_fills() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH sides AS (
    SELECT o.user_id, o.product_id, f.id AS fill_id, o.id AS order_id, true AS taker,
      f.created_at
    FROM written_fills f JOIN orders o ON o.id = f.taker_order_id
    UNION ALL
    SELECT o.user_id, o.product_id, f.id, o.id, false, f.created_at
    FROM written_fills f JOIN orders o ON o.id = f.maker_order_id
  ),
  kept AS MATERIALIZED (
    SELECT pairs.user_id, pairs.product_id,
      coalesce((SELECT max(place) FROM own_fills k
                WHERE k.user_id = pairs.user_id AND k.product_id = pairs.product_id), 0) AS last
    FROM (SELECT DISTINCT user_id, product_id FROM sides) AS pairs
  )
  INSERT INTO own_fills (user_id, product_id, place, fill_id, order_id, taker, created_at)
  SELECT s.user_id, s.product_id,
    kept.last + row_number() OVER (PARTITION BY s.user_id, s.product_id ORDER BY s.fill_id, s.taker),
    s.fill_id, s.order_id, s.taker, s.created_at
  FROM sides s JOIN kept ON kept.user_id = s.user_id AND kept.product_id = s.product_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER own_fills_placed AFTER INSERT ON fills REFERENCING NEW TABLE AS written_fills
FOR EACH STATEMENT EXECUTE FUNCTION place_written_own_fills();

DROP TRIGGER own_fills_counted ON fills;
DROP FUNCTION count_written_own_fills();
DROP TABLE own_fill_counts;
