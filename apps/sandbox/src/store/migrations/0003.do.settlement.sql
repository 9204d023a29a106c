-- When a transaction's settlements started (it became PENDING): the sandbox completes them a
-- set time later. Transactions already PENDING count from their creation.
ALTER TABLE qe_transactions ADD COLUMN pending_since bigint;
