-- The order whose fill opened each trade: a margin order whose trade closed while it still
-- rested (a liquidation, a close at the mark) opens another with its next fill, and its
-- trade_id names only the last. GET /orders/{id}/trades reads them all by it. A trade of a
-- store kept from before has none, and is found, as it was, through its order's trade_id.
ALTER TABLE positions ADD COLUMN order_id bigint;
CREATE INDEX positions_by_order ON positions (order_id) WHERE order_id IS NOT NULL;
