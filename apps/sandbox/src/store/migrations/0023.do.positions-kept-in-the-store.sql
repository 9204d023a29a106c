-- Closed positions and their repaid loans stay in the store, as closed orders do, and memory
-- lets go of them: a start reads the open positions and their loans, `GET /trades` a page of a
-- user's positions newest first, and a trade's loans are read by its id.
CREATE INDEX positions_open ON positions (id) WHERE status = 'open';
CREATE INDEX positions_by_user ON positions (user_id, created_at DESC, id DESC);
CREATE INDEX loans_by_position ON loans (position_id, id);
