-- The sandbox moves the counts of orders (0019), trades and loans (0023) itself, from the rows
-- of each batch and what the store held of them before it, as it moves those of fills and
-- ledger entries (0021): the triggers count only another writer's rows. Each ran a statement
-- of its own over a transition table for every batch, about a tenth of the store's time on a
-- margin fill's batch and a third of it on a batch of one order edit.
DROP TRIGGER orders_counted_added ON orders;
CREATE TRIGGER orders_counted_added AFTER INSERT ON orders
REFERENCING NEW TABLE AS added FOR EACH STATEMENT
WHEN (current_setting('exchange_sandbox.writer', true) IS DISTINCT FROM 'sandbox')
EXECUTE FUNCTION count_added_orders();

DROP TRIGGER orders_counted_moved ON orders;
CREATE TRIGGER orders_counted_moved AFTER UPDATE ON orders
REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT
WHEN (current_setting('exchange_sandbox.writer', true) IS DISTINCT FROM 'sandbox')
EXECUTE FUNCTION count_moved_orders();

DROP TRIGGER positions_counted_added ON positions;
CREATE TRIGGER positions_counted_added AFTER INSERT ON positions
REFERENCING NEW TABLE AS added FOR EACH STATEMENT
WHEN (current_setting('exchange_sandbox.writer', true) IS DISTINCT FROM 'sandbox')
EXECUTE FUNCTION count_added_trades();

DROP TRIGGER positions_counted_moved ON positions;
CREATE TRIGGER positions_counted_moved AFTER UPDATE ON positions
REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT
WHEN (current_setting('exchange_sandbox.writer', true) IS DISTINCT FROM 'sandbox')
EXECUTE FUNCTION count_moved_trades();

DROP TRIGGER loans_counted_added ON loans;
CREATE TRIGGER loans_counted_added AFTER INSERT ON loans
REFERENCING NEW TABLE AS added FOR EACH STATEMENT
WHEN (current_setting('exchange_sandbox.writer', true) IS DISTINCT FROM 'sandbox')
EXECUTE FUNCTION count_added_loans();

-- A position is made in memory from the fill that opens it, whose order names its user and
-- product, and a loan from the position it funds and the bid or house that lends: like fills
-- and entries (0020) they are written without a foreign key checked per row, a query each,
-- about a tenth of the store's time on a margin fill. The orders they are made from keep theirs.
ALTER TABLE positions DROP CONSTRAINT positions_user_id_fkey;
ALTER TABLE positions DROP CONSTRAINT positions_product_id_fkey;
ALTER TABLE loans DROP CONSTRAINT loans_bid_id_fkey;
ALTER TABLE loans DROP CONSTRAINT loans_lender_id_fkey;
ALTER TABLE loans DROP CONSTRAINT loans_borrower_id_fkey;
