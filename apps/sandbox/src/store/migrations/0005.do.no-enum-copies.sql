-- The values of an enum are written once, in the specs: the typed domain only ever stores
-- one of them, so the tables no longer keep a second list that a change of the spec would
-- leave stale. Checks of ranges and of how columns go together stay.
ALTER TABLE currencies DROP CONSTRAINT currencies_currency_type_check;
ALTER TABLE orders DROP CONSTRAINT orders_side_check;
ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders DROP CONSTRAINT orders_trailing_stop_type_check;
ALTER TABLE loan_book_levels DROP CONSTRAINT loan_book_levels_side_check;
ALTER TABLE positions DROP CONSTRAINT positions_side_check;
ALTER TABLE positions DROP CONSTRAINT positions_status_check;
ALTER TABLE qe_assets DROP CONSTRAINT qe_assets_kind_check;
ALTER TABLE qe_intents DROP CONSTRAINT qe_intents_strategy_check;
ALTER TABLE qe_transactions DROP CONSTRAINT qe_transactions_side_check;
ALTER TABLE qe_settlement_instructions DROP CONSTRAINT qe_settlement_instructions_direction_check;

-- Its predicate listed the open statuses a second time, and the book it served is kept in
-- memory: no query reads it.
DROP INDEX orders_book;
