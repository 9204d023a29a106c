-- Loans: what a margin position borrowed of its funding currency, from a loan bid (bid_id) or
-- from the house (bid_id null), and what a bid has lent out now. A loan's status comes from
-- the spec (LoanStatus): no CHECK lists it. Times are Unix milliseconds.
ALTER TABLE loan_bids ADD COLUMN lent numeric NOT NULL DEFAULT 0;
CREATE TABLE loans (
  id bigint PRIMARY KEY,
  position_id bigint NOT NULL,
  bid_id bigint REFERENCES loan_bids (id),
  lender_id bigint NOT NULL REFERENCES users (id),
  borrower_id bigint NOT NULL REFERENCES users (id),
  currency text NOT NULL,
  rate numeric NOT NULL,
  quantity numeric NOT NULL,
  repaid numeric NOT NULL,
  interest numeric NOT NULL,
  charged_until bigint NOT NULL,
  status text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX loans_by_lender ON loans (lender_id, id);
CREATE INDEX loans_by_borrower ON loans (borrower_id, id);
