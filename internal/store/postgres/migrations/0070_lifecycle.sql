-- What erasure, export and the retention sweep look up
-- (docs/data-lifecycle.md). A record's events and an event's deliveries,
-- also for the foreign-key checks of their deletes (without an index, each
-- check scans the child table); finished deliveries by client and finish
-- time, the walk of the sweep (a delivery enters it when it finishes); a
-- client's records in id order (the walk of the records retention; no
-- column of it changes, so updates of a record stay heap-only). The
-- delivery's own reference to its record is dropped rather than indexed:
-- its event names the record, and erasure removes deliveries before
-- records. Building the indexes locks writes to their tables while it
-- runs (seconds per million rows).
CREATE INDEX events_by_record ON events (record_id);
CREATE INDEX deliveries_by_event ON deliveries (event_id);
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_record_id_fkey;
CREATE INDEX deliveries_finished ON deliveries (client_id, updated_at, id) WHERE state <> 'pending';
CREATE INDEX records_by_client ON records (client_id, id);
-- Where each walk of the sweep stopped, per client: a time and an id.
CREATE TABLE retention_cursors (
    client_id TEXT   NOT NULL,
    walk      TEXT   NOT NULL,
    at        BIGINT NOT NULL,
    id        BIGINT NOT NULL,
    PRIMARY KEY (client_id, walk)
);
