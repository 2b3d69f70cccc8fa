-- A version per record, moved on by every write: a save commits only if
-- the record is still the version it read (optimistic concurrency).
ALTER TABLE records ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
-- The scoring model that made each event's payload; every event before
-- this migration was made by pads-score-1.
ALTER TABLE events ADD COLUMN model TEXT NOT NULL DEFAULT 'pads-score-1';
