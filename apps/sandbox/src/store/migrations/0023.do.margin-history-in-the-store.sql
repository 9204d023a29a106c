-- Closed positions and their repaid loans stay in the store, as closed orders do, and memory
-- lets go of them: a start reads the open positions and their loans, `GET /trades` a page of a
-- user's positions newest first, `GET /loans` a page of the loans a user lent or borrowed in a
-- currency, and a trade's loans are read by its id.
CREATE INDEX positions_open ON positions (id) WHERE status = 'open';
CREATE INDEX positions_by_user ON positions (user_id, created_at DESC, id DESC);
CREATE INDEX loans_by_position ON loans (position_id, id);
DROP INDEX loans_by_lender;
DROP INDEX loans_by_borrower;
CREATE INDEX loans_by_lender ON loans (lender_id, currency, id);
CREATE INDEX loans_by_borrower ON loans (borrower_id, currency, id);
-- A closed loan bid nothing is lent from stays in the store alone too: a start reads the rest,
-- `GET /loan_bids` a page of a user's bids of a currency.
CREATE INDEX loan_bids_kept ON loan_bids (id) WHERE status = 'live' OR lent <> 0;
DROP INDEX loan_bids_by_user;
CREATE INDEX loan_bids_by_user ON loan_bids (user_id, currency, id);

-- How many positions each user has of every kind `GET /trades` filters on, and how many loans
-- each user lent or borrowed in each currency, kept as rows are written by any writer, as
-- order_counts (0019): a page counts its pages from these instead of reading every row.
CREATE TABLE trade_counts (
  user_id bigint NOT NULL,
  status text NOT NULL,
  side text NOT NULL,
  product_id bigint NOT NULL,
  funding_currency text NOT NULL,
  trading_type text NOT NULL,
  trades bigint NOT NULL,
  PRIMARY KEY (user_id, status, side, product_id, funding_currency, trading_type)
);

INSERT INTO trade_counts
SELECT user_id, status, side, product_id, funding_currency, trading_type, count(*)
FROM positions GROUP BY 1, 2, 3, 4, 5, 6;

CREATE FUNCTION count_added_trades() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO trade_counts AS c
  SELECT user_id, status, side, product_id, funding_currency, trading_type, count(*) FROM added
  GROUP BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (user_id, status, side, product_id, funding_currency, trading_type)
  DO UPDATE SET trades = c.trades + EXCLUDED.trades;
  RETURN NULL;
END $$;

-- Only a position whose counted kind changed moves: a fill that adds to it moves none.
CREATE FUNCTION count_moved_trades() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO trade_counts AS c
  SELECT user_id, status, side, product_id, funding_currency, trading_type, sum(change) FROM (
    SELECT kind.*
    FROM before_rows o JOIN after_rows n ON n.id = o.id,
      LATERAL (VALUES
        (o.user_id, o.status, o.side, o.product_id, o.funding_currency, o.trading_type, -1),
        (n.user_id, n.status, n.side, n.product_id, n.funding_currency, n.trading_type, 1)
      ) AS kind (user_id, status, side, product_id, funding_currency, trading_type, change)
    WHERE (o.user_id, o.status, o.side, o.product_id, o.funding_currency, o.trading_type)
      IS DISTINCT FROM (n.user_id, n.status, n.side, n.product_id, n.funding_currency,
        n.trading_type)
  ) AS moved
  GROUP BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (user_id, status, side, product_id, funding_currency, trading_type)
  DO UPDATE SET trades = c.trades + EXCLUDED.trades;
  RETURN NULL;
END $$;

CREATE TRIGGER positions_counted_added AFTER INSERT ON positions
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_added_trades();

CREATE TRIGGER positions_counted_moved AFTER UPDATE ON positions
REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
FOR EACH STATEMENT EXECUTE FUNCTION count_moved_trades();

-- A loan counts once for each of its parties; no write changes who they are or the currency.
CREATE TABLE loan_counts (
  user_id bigint NOT NULL,
  currency text NOT NULL,
  loans bigint NOT NULL,
  PRIMARY KEY (user_id, currency)
);

CREATE FUNCTION loan_parties(lender_id bigint, borrower_id bigint) RETURNS SETOF bigint
LANGUAGE sql IMMUTABLE AS $$
  SELECT DISTINCT party FROM (VALUES (lender_id), (borrower_id)) AS parties (party)
$$;

INSERT INTO loan_counts
SELECT party, currency, count(*) FROM loans, loan_parties(lender_id, borrower_id) AS party
GROUP BY 1, 2;

CREATE FUNCTION count_added_loans() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO loan_counts AS c
  SELECT party, currency, count(*) FROM added, loan_parties(lender_id, borrower_id) AS party
  GROUP BY 1, 2
  ON CONFLICT (user_id, currency) DO UPDATE SET loans = c.loans + EXCLUDED.loans;
  RETURN NULL;
END $$;

CREATE TRIGGER loans_counted_added AFTER INSERT ON loans
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_added_loans();
