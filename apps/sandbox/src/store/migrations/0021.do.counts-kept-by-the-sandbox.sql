-- The sandbox adds the fills and ledger entries of each batch to their counts (0015) itself,
-- from the rows it writes, and sets exchange_sandbox.writer to 'sandbox' for the transaction:
-- the triggers count only what another writer adds, and are not even called for the
-- sandbox's rows, where each statement's rows were counted again from a transition table.
DROP TRIGGER fills_counted ON fills;

CREATE TRIGGER fills_counted AFTER INSERT ON fills REFERENCING NEW TABLE AS written_fills
FOR EACH STATEMENT
WHEN (current_setting('exchange_sandbox.writer', true) IS DISTINCT FROM 'sandbox')
EXECUTE FUNCTION count_written_fills();

DROP TRIGGER ledger_entries_counted ON ledger_entries;

CREATE TRIGGER ledger_entries_counted AFTER INSERT ON ledger_entries
REFERENCING NEW TABLE AS written_entries
FOR EACH STATEMENT
WHEN (current_setting('exchange_sandbox.writer', true) IS DISTINCT FROM 'sandbox')
EXECUTE FUNCTION count_written_entries();
