-- Each delivery knows its record, so that a claim can hold back a record's
-- later delivery to a destination while an earlier one is pending
-- (ordering per record, docs/delivery.md).
ALTER TABLE deliveries ADD COLUMN record_id INTEGER REFERENCES records (id);
UPDATE deliveries SET record_id = (SELECT record_id FROM events WHERE events.id = deliveries.event_id);
CREATE INDEX deliveries_by_record ON deliveries (record_id, destination, event_id) WHERE state = 'pending';
