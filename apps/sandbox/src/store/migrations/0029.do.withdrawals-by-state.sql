-- A start reads the withdrawals that have not ended, which alone still move and hold their
-- amount reserved; the ended ones stay in the store, read by user. This index finds the
-- former without reading the latter.
CREATE INDEX withdrawals_by_state ON withdrawals (state, id);
