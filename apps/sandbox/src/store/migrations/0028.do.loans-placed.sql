-- Each loan's place among its lender's loans of its currency and among its borrower's, from 1,
-- oldest first, in one list per user and currency whether they lent or borrowed (a loan to
-- oneself takes one place, both columns): a page of a user's loans, newest first, is a range
-- of places on the two indexes, read without walking the loans before it (a page 100,000 deep
-- walked 100,000 entries of each party's index). The sandbox places the loans it opens from
-- the counts it keeps, read at start from those the store keeps (0023), as it places
-- positions (0027): the trigger places another writer's.
ALTER TABLE loans ADD COLUMN lender_place bigint, ADD COLUMN borrower_place bigint;

-- Each party's loans of a currency in the order of ids; a loan to oneself counted once.
UPDATE loans l SET lender_place = placed.lender_place, borrower_place = placed.borrower_place
FROM (SELECT id, min(place) FILTER (WHERE party = lender_id) AS lender_place,
        min(place) FILTER (WHERE party = borrower_id) AS borrower_place
      FROM (SELECT id, lender_id, borrower_id, party,
              row_number() OVER (PARTITION BY party, currency ORDER BY id) AS place
            FROM loans CROSS JOIN LATERAL (VALUES (lender_id, true), (borrower_id, false))
              AS parties (party, lent)
            WHERE lent OR borrower_id IS DISTINCT FROM lender_id) AS each_party
      GROUP BY id) AS placed
WHERE placed.id = l.id;

ALTER TABLE loans ALTER COLUMN lender_place SET NOT NULL,
  ALTER COLUMN borrower_place SET NOT NULL;

CREATE UNIQUE INDEX loans_by_lender_place ON loans (lender_id, currency, lender_place);
CREATE UNIQUE INDEX loans_by_borrower_place ON loans (borrower_id, currency, borrower_place);
DROP INDEX loans_by_lender;
DROP INDEX loans_by_borrower;

-- The greatest place `party` holds among its loans of `currency`, 0 for none.
CREATE FUNCTION last_loan_place(party bigint, of_currency text) RETURNS bigint
LANGUAGE sql AS $$
  SELECT greatest(
    (SELECT max(lender_place) FROM loans WHERE lender_id = party AND currency = of_currency),
    (SELECT max(borrower_place) FROM loans WHERE borrower_id = party AND currency = of_currency),
    0)
$$;

-- A loan written without its places takes the next of each party.
CREATE FUNCTION place_loan() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.lender_place := last_loan_place(NEW.lender_id, NEW.currency) + 1;
  NEW.borrower_place := CASE WHEN NEW.borrower_id = NEW.lender_id THEN NEW.lender_place
                        ELSE last_loan_place(NEW.borrower_id, NEW.currency) + 1 END;
  RETURN NEW;
END $$;

CREATE TRIGGER loans_placed BEFORE INSERT ON loans
FOR EACH ROW WHEN (NEW.lender_place IS NULL OR NEW.borrower_place IS NULL)
EXECUTE FUNCTION place_loan();
