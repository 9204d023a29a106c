-- Fills and ledger entries are history the sandbox only ever appends, each made in memory from
-- rows it holds and writes in the same batch (a fill from its orders, an entry posted to an
-- account, whose row names its user and currency). A foreign key checked each of them again
-- with a query per row and key: about a fifth of the store's time writing a margin fill's
-- batch, whose eight entries named a user and a currency each. As own_fills (0017), they go
-- without.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_user_id_fkey;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_currency_fkey;
ALTER TABLE fills DROP CONSTRAINT fills_product_id_fkey;
ALTER TABLE fills DROP CONSTRAINT fills_taker_order_id_fkey;
ALTER TABLE fills DROP CONSTRAINT fills_maker_order_id_fkey;
