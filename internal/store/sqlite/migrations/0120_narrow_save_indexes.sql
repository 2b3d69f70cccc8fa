-- Two index entries fewer per save (docs/performance.md): a patient's
-- records of every client are found through the records' unique key, one
-- probe per client, and a record's deliveries through its events
-- (events_by_record, deliveries_by_event). An index of random patient
-- uuids was the dearest entry a save wrote.
DROP INDEX records_by_patient;
DROP INDEX deliveries_of_record;
