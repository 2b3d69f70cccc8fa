-- An index entry fewer per save: a patient's records of every client are
-- found through the records' unique key, one probe per client. An index
-- of random patient uuids was the dearest entry a save wrote. (This also
-- dropped deliveries_of_record, which the foreign key of
-- deliveries.record_id needs: 0121 makes it again.)
DROP INDEX records_by_patient;
DROP INDEX deliveries_of_record;
