-- What erasure, export and the retention sweep look up
-- (docs/data-lifecycle.md). A record's events and an event's deliveries,
-- also for the foreign-key checks of their deletes (SQLite looks for the
-- child rows of a deleted parent: without an index, a scan of the table);
-- finished deliveries by client and finish time, the walk of the sweep
-- (a delivery enters it when it finishes); a client's records in id order
-- (the walk of the records retention; the rowid follows client_id). Each
-- costs a save one more index entry; a long-lived database builds them once
-- here, which takes a while per million rows.
CREATE INDEX events_by_record ON events (record_id);
CREATE INDEX deliveries_by_event ON deliveries (event_id);
CREATE INDEX deliveries_of_record ON deliveries (record_id);
CREATE INDEX deliveries_finished ON deliveries (client_id, updated_at, id) WHERE state <> 'pending';
CREATE INDEX records_by_client ON records (client_id);
-- Where each walk of the sweep stopped, per client: a time and an id.
CREATE TABLE retention_cursors (
    client_id TEXT    NOT NULL,
    walk      TEXT    NOT NULL,
    at        INTEGER NOT NULL,
    id        INTEGER NOT NULL,
    PRIMARY KEY (client_id, walk)
) STRICT;
