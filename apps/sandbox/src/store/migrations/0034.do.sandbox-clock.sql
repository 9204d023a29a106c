-- How far test control has moved the sandbox's clock ahead of the wall clock (`TestClock`):
-- one row, kept so that a restart goes on from where the clock stood. A store without one
-- runs on the wall clock.
CREATE TABLE sandbox_clock (
  id integer PRIMARY KEY CHECK (id = 1),
  offset_ms bigint NOT NULL CHECK (offset_ms >= 0)
);
