-- Each delivery knows its record, so that a claim can hold back a record's
-- later delivery to a destination while an earlier one is pending
-- (ordering per record, docs/delivery.md).
ALTER TABLE deliveries ADD COLUMN record_id BIGINT REFERENCES records (id);
UPDATE deliveries d SET record_id = e.record_id FROM events e WHERE e.id = d.event_id;
CREATE INDEX deliveries_by_record ON deliveries (record_id, destination, event_id) WHERE state = 'pending';
