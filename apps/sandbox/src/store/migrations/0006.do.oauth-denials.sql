-- A denial is kept as such, so the ids of a denied request are refused as denied rather than
-- read as expired. Requests denied before this column were closed by moving expires_at to the
-- time of the denial: they stay expired.
ALTER TABLE oauth_requests ADD COLUMN denied_at bigint;
ALTER TABLE oauth_requests ADD CONSTRAINT oauth_requests_one_answer
  CHECK (denied_at IS NULL OR approved_by_user_id IS NULL);
