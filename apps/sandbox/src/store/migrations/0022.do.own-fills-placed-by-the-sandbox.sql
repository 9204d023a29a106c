-- The sandbox writes the own fills of the fills it writes, each placed from the count it keeps
-- of its user's own fills of the product (read at start from the greatest places), as it
-- places ledger entries (0018): the trigger of 0017 places only another writer's fills, and
-- is not called for the sandbox's, where it joined each statement's fills to their orders and
-- looked up the last place of each of their users.
DROP TRIGGER own_fills_placed ON fills;

CREATE TRIGGER own_fills_placed AFTER INSERT ON fills REFERENCING NEW TABLE AS written_fills
FOR EACH STATEMENT
WHEN (current_setting('exchange_sandbox.writer', true) IS DISTINCT FROM 'sandbox')
EXECUTE FUNCTION place_written_own_fills();
