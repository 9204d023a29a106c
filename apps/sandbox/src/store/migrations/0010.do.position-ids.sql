-- Both sides of one fill may open a margin position, so a position's id is its own, no
-- longer the id of the fill that opened it.
ALTER TABLE positions DROP CONSTRAINT positions_id_fkey;
