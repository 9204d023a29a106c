-- The ledger: every change of a balance as an entry, with the balance after it and what
-- caused it. An account's balance is the sum of its entries.
CREATE TABLE ledger_entries (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  currency text NOT NULL REFERENCES currencies (code),
  amount numeric NOT NULL,
  balance numeric NOT NULL,
  -- One of the spec's LedgerSourceAction and LedgerSourceObjectType: the enums are written
  -- once, in the spec (see 0005).
  source_action text NOT NULL,
  source_object_type text,
  source_object_id bigint,
  created_at bigint NOT NULL,
  CHECK ((source_object_type IS NULL) = (source_object_id IS NULL))
);
CREATE INDEX ledger_entries_by_user ON ledger_entries (user_id, id);

-- Balances stored before the ledger are explained by one funding entry each, so that the
-- entries of every account sum to its balance from the start.
INSERT INTO ledger_entries (user_id, currency, amount, balance, source_action, created_at)
SELECT user_id, currency, balance, balance, 'funding', (extract(epoch FROM now()) * 1000)::bigint
FROM accounts WHERE balance <> 0 ORDER BY id;
