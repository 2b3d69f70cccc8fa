-- Each record lookup gets an index that leads with a column only that
-- lookup names: the key lookup (patient_uuid first), the email lookup
-- (email_index first). Before, both indexes led with client_id, and a
-- generic plan made while the table was empty or not yet analyzed chose
-- the email index for key lookups, filtering on patient_uuid: every save
-- read all of its client's records. Now neither lookup can use the other's
-- index, whatever the statistics or the plan cache mode. Rebuilding the two
-- indexes locks writes to records while it runs (seconds per million rows).
ALTER TABLE records DROP CONSTRAINT records_client_id_patient_uuid_assessment_type_key;
CREATE UNIQUE INDEX records_by_key ON records (patient_uuid, client_id, assessment_type);
DROP INDEX records_by_email;
CREATE INDEX records_by_email ON records (email_index, client_id, assessment_type);

-- Claims take the due pending deliveries in (next_at, id) order: an index
-- of pending deliveries only, in that order, lets a claim read just the
-- rows it takes, however long the backlog and however many deliveries are
-- done. Failed deliveries get their own small index, for the queue's
-- metrics and for replays of failed deliveries since a time.
DROP INDEX deliveries_due;
CREATE INDEX deliveries_due ON deliveries (next_at, id) WHERE state = 'pending';
CREATE INDEX deliveries_failed ON deliveries (updated_at) WHERE state = 'failed';
