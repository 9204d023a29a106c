-- Loan bids: offers to lend a crypto currency to margin traders. A bid's status comes from
-- the spec (LoanBidStatus): no CHECK lists it. Times are Unix milliseconds.
CREATE TABLE loan_bids (
  id bigint PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  currency text NOT NULL,
  rate numeric NOT NULL,
  quantity numeric NOT NULL,
  status text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX loan_bids_by_user ON loan_bids (user_id, id);
