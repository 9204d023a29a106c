-- What the fills that closed part of each trade charged their orders in fees (`close_fee`),
-- kept on the trade as its realized P&L is.
ALTER TABLE positions ADD COLUMN close_fee numeric NOT NULL DEFAULT 0;

-- A trade is closed by fills of the margin orders that unwind it (a take profit, a stop loss,
-- a close): their fees so far (0031) are its close fee. A close at the mark makes no fill.
UPDATE positions SET close_fee = closing.fee
FROM (SELECT unwound_trade_id AS id, sum(fee_charged) AS fee FROM orders
      WHERE unwound_trade_id IS NOT NULL AND trading_type <> 'spot'
      GROUP BY unwound_trade_id) AS closing
WHERE positions.id = closing.id;
