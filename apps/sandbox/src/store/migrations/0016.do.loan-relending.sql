-- A lender's choice for each loan: whether what is repaid goes back to the bid it was lent
-- from (PUT /loans/{loan_id}). Loans made before lent again, as the sandbox then did.
ALTER TABLE loans ADD COLUMN fund_reloaned boolean NOT NULL DEFAULT true;
-- What traders who are not sandbox users borrow from a bid (test control lends it) belongs to
-- no position.
ALTER TABLE loans ALTER COLUMN position_id DROP NOT NULL;
