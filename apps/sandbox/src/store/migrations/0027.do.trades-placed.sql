-- Each position's place among its user's positions, from 1, oldest first: a page of a user's
-- trades, newest first, is a range of places, read without walking the positions before it
-- (a page 100,000 deep walked 100,000 entries of positions_by_user). The sandbox places the
-- positions it opens from the count it keeps of each user's (read at start from the greatest
-- places), as it places ledger entries (0015, 0018): the trigger places another writer's.
-- Places follow the times positions were opened; a page of some kinds of a user's trades is
-- in the order of places too, on their index, and the index by time goes.
ALTER TABLE positions ADD COLUMN user_place bigint;

UPDATE positions p SET user_place = placed.place
FROM (SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY created_at, id) AS place
      FROM positions) AS placed
WHERE p.id = placed.id;

ALTER TABLE positions ALTER COLUMN user_place SET NOT NULL;

CREATE UNIQUE INDEX positions_by_user_place ON positions (user_id, user_place);
DROP INDEX positions_by_user;

-- A position written without its place takes its user's next one.
CREATE FUNCTION place_position() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.user_place := coalesce((SELECT max(user_place) FROM positions
                              WHERE user_id = NEW.user_id), 0) + 1;
  RETURN NEW;
END $$;

CREATE TRIGGER positions_placed BEFORE INSERT ON positions
FOR EACH ROW WHEN (NEW.user_place IS NULL) EXECUTE FUNCTION place_position();
