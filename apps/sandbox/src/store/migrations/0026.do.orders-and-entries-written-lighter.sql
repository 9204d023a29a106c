-- An order is placed by a call of a user memory holds, on a product it holds, and the sandbox
-- deletes neither: like the fills, entries, positions and loans made from orders (0020, 0025),
-- orders go without a foreign key checked per row, two queries for every order placed.
ALTER TABLE orders DROP CONSTRAINT orders_user_id_fkey;
ALTER TABLE orders DROP CONSTRAINT orders_product_id_fkey;

-- One currency's entries of a user are in the order of their places (0015) as of their ids:
-- their pages are read by place, and the index by id within a currency was a fourth written
-- with every entry, a margin fill's eight included.
DROP INDEX ledger_entries_by_user_currency;
