-- A claim that skips destinations (full lines, paused destinations, those
-- waiting for their rate's next token) reads the due deliveries of each
-- other destination down this index (each entry ends with the rowid, the
-- delivery's id), rather than walking the skipped destinations' due
-- backlog in the (state, next_at) order of deliveries_due: with 32
-- destinations full and 2,000 due each, every claim read 64,000 rows to
-- reach a healthy destination's 32, on the writer, behind the saves.
CREATE INDEX deliveries_due_by_destination ON deliveries (client_id, destination, next_at) WHERE state = 'pending';
