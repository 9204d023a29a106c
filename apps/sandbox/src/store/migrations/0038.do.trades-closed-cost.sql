-- What the closed part of each trade cost to open. A close took its share of the average of
-- every opening fill, so a fill that added to a trade after a partial close moved the price
-- of what was already closed: the profit or loss of the next close, and the margin held.
ALTER TABLE positions ADD COLUMN closed_cost numeric NOT NULL DEFAULT 0;

-- Trades kept from before: their closes took that share of the average of every opening fill.
UPDATE positions SET closed_cost = CASE
  WHEN closed_quantity = quantity THEN open_value
  ELSE open_value * closed_quantity / quantity
END
WHERE closed_quantity > 0;
