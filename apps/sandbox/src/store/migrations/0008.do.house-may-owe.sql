-- The house (user 999, houseUserId in src/exchange/ledger.ts) is paid every fee and is the
-- other side of every margin profit and loss: its balance goes below zero when it owes.
-- Everyone else's still covers what it holds reserved.
ALTER TABLE accounts DROP CONSTRAINT accounts_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_check
  CHECK (reserved_balance >= 0 AND (balance >= reserved_balance OR user_id = 999));
