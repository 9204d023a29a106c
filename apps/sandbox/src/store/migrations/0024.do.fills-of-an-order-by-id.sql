-- An order's fills by id on each side: a start reads the last fill of every open order that
-- has one, which was every fill of the order on the index by order alone, and more when the
-- planner's statistics, taken before a bulk write of fills, led it to walk the fills by id.
DROP INDEX fills_by_taker_order;
CREATE INDEX fills_by_taker_order ON fills (taker_order_id, id);
DROP INDEX fills_by_maker_order;
CREATE INDEX fills_by_maker_order ON fills (maker_order_id, id);
