-- What each order's fills have charged it in fees (`order_fee`), kept on the order as its
-- filled value is: a page of orders reads it with them, where summing the fee entries of each
-- order's fills took a join per row.
ALTER TABLE orders ADD COLUMN fee_charged numeric NOT NULL DEFAULT 0;

-- An order's fees so far: its owner's trade_fee entry against each of its fills. A fill
-- charges its taker first, then its maker (`chargeFee`), so where one user is both sides the
-- first of that user's two entries is the taker's.
WITH fees AS (
  SELECT source_object_id AS fill_id, user_id, -amount AS fee,
    row_number() OVER (PARTITION BY source_object_id, user_id ORDER BY id) AS nth
  FROM ledger_entries
  WHERE source_action = 'trade_fee' AND source_object_type = 'Execution'
),
charged AS (
  SELECT f.taker_order_id AS order_id, fees.fee
  FROM fills f
  JOIN orders taker ON taker.id = f.taker_order_id
  JOIN fees ON fees.fill_id = f.id AND fees.user_id = taker.user_id AND fees.nth = 1
  UNION ALL
  SELECT f.maker_order_id, fees.fee
  FROM fills f
  JOIN orders taker ON taker.id = f.taker_order_id
  JOIN orders maker ON maker.id = f.maker_order_id
  JOIN fees ON fees.fill_id = f.id AND fees.user_id = maker.user_id
    AND fees.nth = CASE WHEN maker.user_id = taker.user_id THEN 2 ELSE 1 END
)
UPDATE orders SET fee_charged = summed.fee
FROM (SELECT order_id, sum(fee) AS fee FROM charged GROUP BY order_id) AS summed
WHERE orders.id = summed.order_id;
