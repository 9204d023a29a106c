-- Closed orders and fills stay in the store, which answers for them: a start reads the open
-- orders alone, and the reads of history page through these indexes.

CREATE INDEX orders_by_status ON orders (status);

CREATE INDEX orders_by_user_status ON orders (user_id, status, created_at DESC, id DESC);

CREATE INDEX orders_by_user_product ON orders (user_id, product_id, id);

CREATE INDEX fills_by_taker_order ON fills (taker_order_id);

CREATE INDEX fills_by_maker_order ON fills (maker_order_id);

CREATE INDEX ledger_entries_by_user_currency ON ledger_entries (user_id, currency, id);
