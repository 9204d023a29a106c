-- Withdrawals (crypto to an address, fiat to a bank account) and deposits. A withdrawal's
-- state and a deposit's come from the specs (WithdrawalState, FundInfoState): no CHECK lists
-- them. Times are Unix milliseconds.
CREATE TABLE withdrawals (
  id bigint PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  kind text NOT NULL,
  currency text NOT NULL,
  amount numeric NOT NULL,
  fee numeric NOT NULL,
  state text NOT NULL,
  address text,
  network text,
  payment_id text,
  memo_type text,
  memo_value text,
  transaction_hash text,
  bank_account_id bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX withdrawals_by_user ON withdrawals (user_id, id);

CREATE TABLE deposits (
  id bigint PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  currency text NOT NULL,
  amount numeric NOT NULL,
  state text NOT NULL,
  transaction_hash text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX deposits_by_user ON deposits (user_id, id);
